"""``citeledger convert`` writes its outputs at the same time (``-j``): the files are the ones
built one at a time, what it says reads the same, and a failed output costs only itself."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from xml.etree.ElementTree import canonicalize

import pytest
from pypdf import PdfReader

from tests.helpers import run_citeledger

OUTPUTS = ("r.html", "r.docx", "r.pptx", "r.md", "r.pdf")


def convert(folder: Path, *args: str):
    # pandoc stamps Office files with the time unless told the build's date.
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    return run_citeledger("convert", *args, cwd=folder, env=env, timeout=600)


def _parts(path: Path) -> dict[str, str]:
    """Each part of an Office file, XML parts in canonical form (attribute order and
    namespace spelling do not count), others as their bytes."""
    parts = {}
    with zipfile.ZipFile(path) as archive:
        for name in sorted(archive.namelist()):
            data = archive.read(name)
            if name.endswith((".xml", ".rels")):
                parts[name] = canonicalize(data.decode("utf-8"))
            else:
                parts[name] = data.hex()
    return parts


def _pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def _same(one: Path, other: Path) -> None:
    if one.suffix in (".docx", ".pptx"):
        a, b = _parts(one), _parts(other)
        assert sorted(a) == sorted(b), one.name
        for name in a:
            assert a[name] == b[name], f"{one.name}: part {name} differs"
    elif one.suffix == ".pdf":
        assert _pdf_text(one) == _pdf_text(other), one.name
    else:
        assert one.read_bytes() == other.read_bytes(), one.name


@pytest.mark.slow
def test_outputs_written_together_are_the_files_written_one_at_a_time(draft: Path) -> None:
    folder = draft.parent
    together = folder / "together"
    alone = folder / "alone"
    together.mkdir()
    alone.mkdir()
    args = [arg for name in OUTPUTS for arg in ("-o", f"together/{name}")]
    done = convert(folder, "input.md", *args, "--to", "gfm", "-j", "4")
    assert done.returncode == 0, done.stderr
    for name in OUTPUTS:
        single = convert(folder, "input.md", "-o", f"alone/{name}", "--to", "gfm")
        assert single.returncode == 0, single.stderr
    for name in OUTPUTS:
        _same(together / name, alone / name)


MATH_TABLE = """\
## Results

| quantity | value |
|---|---|
| $x^2$ | 4 |

Ice floats on water for days.[1] See ![a blue box](http://127.0.0.1:1/gone.png).

## Sources

[1] https://a.org/1 — A
"""


def _failing(folder: Path) -> None:
    (folder / "ledger.json").write_text(
        '{"version": 1, "sources": [{"id": 1, "url": "https://a.org/1", "title": "A"}]}',
        encoding="utf-8",
    )
    (folder / "m.md").write_text(MATH_TABLE, encoding="utf-8")


def test_a_failed_output_costs_only_itself_when_written_together(tmp_path: Path) -> None:
    _failing(tmp_path)
    outputs = ["-o", "m.html", "-o", "m.pptx", "-o", "m.docx"]
    done = convert(tmp_path, "m.md", *outputs, "-j", "3")
    assert done.returncode == 2
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("citeledger: error:")]
    assert len(errors) == 2, done.stderr
    assert errors[0].startswith("citeledger: error: m.pptx: pandoc wrote broken XML")
    assert "1 of 3 outputs not written (m.pptx); written: m.html, m.docx" in errors[1]
    assert (tmp_path / "m.html").is_file() and (tmp_path / "m.docx").is_file()
    assert not (tmp_path / "m.pptx").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.json", "m.docx", "m.html", "m.md"]


def test_what_convert_says_reads_the_same_whichever_output_finishes_first(
    tmp_path: Path,
) -> None:
    """Lines come in the order the outputs were asked for, each output's together: the
    warning about the image and the failed slide deck sit where a one-at-a-time run has them."""
    _failing(tmp_path)
    outputs = ["-o", "m.html", "-o", "m.pptx", "-o", "m.docx", "-o", "m.typ"]
    serial = convert(tmp_path, "m.md", *outputs, "-j", "1")
    parallel = convert(tmp_path, "m.md", *outputs, "-j", "4")
    assert serial.returncode == parallel.returncode == 2
    assert "remote image(s) not fetched" in serial.stderr
    assert parallel.stderr == serial.stderr
    assert parallel.stdout == serial.stdout
    assert [ln.split()[-1] for ln in serial.stdout.splitlines()] == ["m.html", "m.docx", "m.typ"]


def test_jobs_below_one_is_refused_before_any_work(draft: Path) -> None:
    done = convert(draft.parent, "input.md", "-o", "r.html", "-j", "0")
    assert done.returncode == 2 and "--jobs 0" in done.stderr
    assert not (draft.parent / "r.html").exists()


def test_without_fork_the_outputs_are_written_by_threads_the_same(
    draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system cannot fork (Windows), writers are threads of the build's process."""
    import multiprocessing

    from citeledger.publish.convert import ConvertRequest
    from citeledger.publish.convert import convert as build

    monkeypatch.chdir(draft.parent)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(draft.parent / "ledger.json"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    names = ("r.html", "r.docx", "r.pptx")
    heard: dict[int, list[str]] = {}
    for jobs in (1, 3):
        if jobs > 1:
            monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
        folder = draft.parent / f"j{jobs}"
        folder.mkdir()
        lines = heard.setdefault(jobs, [])
        build(
            ConvertRequest(
                draft=draft,
                outputs=[folder / name for name in names],
                say=lines.append,
                progress=lambda path, done, lines=lines: lines.append(f"{path.name} {done}"),
                jobs=jobs,
            )
        )
    for name in names:
        _same(draft.parent / "j3" / name, draft.parent / "j1" / name)
    assert heard[3] == heard[1]


def test_a_writer_that_cannot_be_started_is_built_in_the_build_itself(
    draft: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing.context

    from citeledger.publish.convert import ConvertRequest
    from citeledger.publish.convert import convert as build

    def refuse(self: object) -> None:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", refuse)
    monkeypatch.chdir(draft.parent)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(draft.parent / "ledger.json"))
    names = ["r.html", "r.md", "r.typ"]
    written = build(ConvertRequest(draft=draft, outputs=[Path(n) for n in names], to="gfm", jobs=2))
    assert written == [Path(n) for n in names]
    assert all((draft.parent / n).stat().st_size > 0 for n in names)


@pytest.mark.parametrize(("cores", "writers"), [(1, 1), (2, 3), (8, 9)])
def test_one_writer_more_than_the_cores_unless_told(
    monkeypatch: pytest.MonkeyPatch, cores: int, writers: int
) -> None:
    """Outputs differ in work: with one writer per core the last output started ran alone at
    the end, the other cores idle; one writer more shares the cores, and -j still decides."""
    from citeledger.publish.convert import pool
    from citeledger.publish.convert.request import ConvertRequest

    monkeypatch.setattr(pool, "default_jobs", lambda: cores)
    assert pool.default_writers() == writers
    outputs = [Path(f"r{k}.html") for k in range(12)]

    class Job:
        def __init__(self, jobs: int | None) -> None:
            self.outputs = outputs
            self.req = ConvertRequest(draft=Path("d.md"), outputs=outputs, jobs=jobs)

    assert pool._jobs(Job(None)) == writers  # type: ignore[arg-type]
    assert pool._jobs(Job(2)) == 2  # type: ignore[arg-type]
