"""What a one-page verify starts besides its own pandoc parse: nothing. The tree pandoc gives
names its own ``pandoc-api-version``, so the version probe (``pandoc --version``, a second
start, a third of a one-page verify's time) runs only when the read fails or gives no tree the
gate would pass (issue 33); what a failing, old or false pandoc is told stays the gate's one
line (``tests/commands/test_pandoc_gate.py``)."""

from __future__ import annotations

import ast
import contextlib
import os
import signal
import stat
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import OWN_VARS, citeledger_env, run_citeledger

DRAFT = "Sea ice floats on water.[1]\n\n## Sources\n\n[1] https://example.org/a\n"


def _logging_pandoc(folder: Path) -> Path:
    """A pandoc that writes each of its command lines to ``runs.log``, then runs the real one."""
    wrapper = folder / "pandoc"
    wrapper.write_text(
        f'#!/bin/sh\necho "$*" >> "{folder / "runs.log"}"\nexec "{pandoc_path()}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


def _verify_with(folder: Path, pandoc: Path) -> list[str]:
    """The pandoc command lines of one verify of a one-page draft run with ``pandoc``."""
    assert run_citeledger("add", "https://example.org/a", cwd=folder).returncode == 0
    (folder / "draft.md").write_text(DRAFT, encoding="utf-8")
    done = run_citeledger(
        "verify", "draft.md", cwd=folder, extra_env={"CITELEDGER_PANDOC": str(pandoc)}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "citations OK"
    return (folder / "runs.log").read_text(encoding="utf-8").splitlines()


def test_one_page_verify_starts_pandoc_once(tmp_path: Path) -> None:
    runs = _verify_with(tmp_path, _logging_pandoc(tmp_path))
    assert len(runs) == 1, runs
    assert "--version" not in runs[0] and "-t json" in runs[0]
    # The memory bound is on the read all the same.
    assert runs[0].startswith("+RTS -M4G -RTS --RTS "), runs


def test_a_pandoc_without_runtime_options_still_reads(tmp_path: Path) -> None:
    """A pandoc built without ``-rtsopts`` refuses ``+RTS``: the first read fails, the probe
    learns why, and the draft is read again without them."""
    logged = _logging_pandoc(tmp_path)
    strict = tmp_path / "pandoc-no-rts"
    strict.write_text(
        '#!/bin/sh\nif [ "$1" = "+RTS" ]; then echo "pandoc: Most RTS options are disabled." >&2;'
        f' exit 1; fi\nexec "{logged}" "$@"\n',
        encoding="utf-8",
    )
    strict.chmod(strict.stat().st_mode | stat.S_IXUSR)
    runs = _verify_with(tmp_path, strict)
    assert len(runs) == 2 and runs[0] == "--version", runs
    assert "+RTS" not in runs[1] and "-t json" in runs[1], runs


# What a quick verify must not have loaded when pandoc starts on the draft: the early start
# (citeledger/pandoc_start.py) runs before the modules that are most of a verify's imports.
HEAVY = ("pathlib", "re", "json", "citeledger.options", "citeledger.verify.checks")


def _spawns(folder: Path, *args: str) -> tuple[list[tuple[list[str], list[str]]], str]:
    """Each pandoc a verify run as ``args`` started (its command line, and which of
    :data:`HEAVY` were loaded then), and what it printed. Run with ``python -S`` (the test's
    interpreter may load pathlib and re in ``site``, for an editable install), its packages put
    on the path by hand."""
    import subprocess
    import sys
    import sysconfig
    import textwrap

    from tests.helpers import ROOT

    probe = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}]
        sys.path.append({sysconfig.get_paths()["purelib"]!r})
        heavy = {HEAVY!r}
        assert not [m for m in heavy if m in sys.modules], "loaded before the run"
        from citeledger import pandoc_start
        spawn, seen = pandoc_start.spawn, []

        def spying(cmd, env):
            seen.append((cmd, [m for m in heavy if m in sys.modules]))
            return spawn(cmd, env)

        pandoc_start.spawn = spying
        from citeledger.cli import main
        try:
            main({list(args)!r})
        finally:
            print("spawned", repr(seen))
        """
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env=citeledger_env(unset=OWN_VARS),
    )
    assert done.returncode == 0, done.stderr
    assert "citations OK" in done.stdout, done.stdout
    last = done.stdout.splitlines()[-1]
    assert last.startswith("spawned "), done.stdout
    return ast.literal_eval(last.removeprefix("spawned ")), done.stdout


def test_the_read_starts_before_the_verifier_loads(tmp_path: Path) -> None:
    """pandoc parses the draft while the process loads the verifier (two cores side by side):
    it starts before pathlib, re, json and the option table load, and its output is the one
    the verify reads (one pandoc in all)."""
    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    spawns, _out = _spawns(tmp_path, "verify", "--strict", "--min-coverage", "0.5", "draft.md")
    assert len(spawns) == 1, spawns
    cmd, loaded = spawns[0]
    assert loaded == [], cmd
    assert cmd[-2:] == ["--", "draft.md"] and cmd[cmd.index("-f") + 1] == "markdown", cmd


@pytest.mark.parametrize("where", ["sub/draft.md", "absolute", "linked/draft.md", "./draft.md"])
def test_the_read_started_early_is_the_one_taken_wherever_the_draft_is(
    tmp_path: Path, where: str
) -> None:
    """The early start's command line is the read's own (resource path and all) for a draft
    in a subfolder, named by an absolute path, or reached through a symlinked folder: one
    pandoc, started before the heavy imports. A path written unplainly (``./draft.md``) is
    read as before: one pandoc, started when the verifier's modules are loading."""
    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "draft.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "linked").symlink_to(tmp_path / "sub", target_is_directory=True)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    word = str(tmp_path / "sub" / "draft.md") if where == "absolute" else where
    spawns, _out = _spawns(tmp_path, "verify", word)
    assert len(spawns) == 1, spawns
    assert (spawns[0][1] == []) == (where != "./draft.md"), spawns
    resources = spawns[0][0][spawns[0][0].index("--resource-path") + 1]
    folder = tmp_path if where == "./draft.md" else tmp_path / "sub"
    assert resources == f"{folder.resolve()}:.", resources


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["verify", "--min-coverage", "lots", "draft.md"], 2),  # refused after the start
        (["verify", "draft.md", "--format", "yaml"], 2),
        (["verify", "draft.md", "--help"], 0),  # a form the quick path leaves to typer
    ],
    ids=["bad-flag-value", "bad-format", "typer-path"],
)
def test_a_run_ended_before_its_read_leaves_no_pandoc_behind(
    tmp_path: Path, args: list[str], code: int
) -> None:
    """pandoc starts on the draft before the command line is fully read; a run that ends
    before it takes the read kills and reaps it (a pandoc that would read for five minutes:
    left behind, the test finds it)."""
    import time
    import uuid

    from tests.helpers import marked_processes

    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    slow = tmp_path / "slow-pandoc"
    slow.write_text(
        '#!/bin/sh\ncase " $* " in *" -t json "*) sleep 300 ;; esac\n'
        f'exec "{pandoc_path()}" "$@"\n',
        encoding="utf-8",
    )
    slow.chmod(0o755)
    marker = uuid.uuid4().hex
    extra = {"CITELEDGER_PANDOC": str(slow), "CITELEDGER_TEST_MARK": marker}
    try:
        done = run_citeledger(*args, cwd=tmp_path, extra_env=extra, timeout=120)
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr
        if code:
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        time.sleep(0.2)
        assert marked_processes(marker) == []
    finally:
        for pid, _cmd in marked_processes(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


# What a one-page verify of a plain markdown draft must not load at all (issue 33): each is a
# share of its start that such a draft never uses. ``contextlib`` (its classes built on abc):
# the contexts a verify enters are classes; ``math``: the option table checks a fraction by
# comparison; the ``utf-8-sig`` codec's module: the ledger's byte-order mark is cut off by hand;
# the include vetting (a read naming no include), the atomic write and the ledger's lock (a
# verify writes nothing and takes no lock).
NOT_LOADED = (
    "contextlib",
    "math",
    "encodings.utf_8_sig",
    "citeledger.includes",
    "citeledger.atomic",
    "citeledger.ledger.lock_file",
)
# Patterns a plain one-page draft can never match (no fence, div, footnote, reference
# definition, heading attributes, paginated title): a guard tells them apart uncompiled.
UNCOMPILED = (
    ("citeledger.document.sources_lines", "_FENCE"),
    ("citeledger.document.sources_lines", "_DIV_FENCE"),
    ("citeledger.document.sources_lines", "_HEADING_ATTRIBUTES"),
    ("citeledger.document.sources_lines", "_DEFINITION"),
    ("citeledger.document.sources_lines", "FOOTNOTE_DEF"),
    ("citeledger.document.locate", "_REF_DEF"),
    ("citeledger.document.sources_titles", "PAGINATION"),
    ("citeledger.ledger.urls", "_SCHEME"),
    ("citeledger.ledger.urls", "_CANONICAL"),
)

ONE_PAGE = (
    "\n\n".join(
        f"Sea ice covers a share of the polar oceans, read from satellite records.[{n}] The"
        f" record shows a decline in every month of the year.[{n}]"
        for n in (1, 2)
    )
    + "\n\n## Sources\n\n"
    + "\n".join(f"[{n}] https://example.org/sea-ice/{n} — Sea ice {n}" for n in (1, 2))
    + "\n"
)


@pytest.mark.parametrize(
    "args",
    [["verify", "draft.md"], ["verify", "--strict", "--format", "json", "draft.md"]],
    ids=["text", "json"],
)
def test_a_one_page_verify_loads_no_module_nor_pattern_it_does_not_use(
    tmp_path: Path, args: list[str]
) -> None:
    import json
    import subprocess
    import sys
    import sysconfig
    import textwrap

    from tests.helpers import ROOT

    for n in (1, 2):
        url = f"https://example.org/sea-ice/{n}"
        assert run_citeledger("add", url, "--title", f"Sea ice {n}", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(ONE_PAGE, encoding="utf-8")
    probe = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}]
        sys.path.append({sysconfig.get_paths()["purelib"]!r})
        import gc
        from citeledger import pandoc_start
        spawn, paused = pandoc_start.spawn, []

        def spying(cmd, env):
            paused.append(not gc.isenabled())
            return spawn(cmd, env)

        pandoc_start.spawn = spying
        from citeledger.cli import main
        try:
            code = main({args!r})
        finally:
            assert paused == [True] and gc.isenabled(), (paused, gc.isenabled())
            loaded = [m for m in {NOT_LOADED!r} if m in sys.modules]
            compiled = [
                name for module, name in {UNCOMPILED!r}
                if "match" in vars(getattr(sys.modules[module], name))
            ]
            print("seen", repr((code, loaded, compiled)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=citeledger_env(unset=OWN_VARS),
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    code, loaded, compiled = ast.literal_eval(last.removeprefix("seen "))
    assert code in (None, 0), done.stdout + done.stderr  # main() returns what it ran with
    if "json" in args:
        assert json.loads(done.stdout[: done.stdout.rindex("seen ")])["ok"] is True
    assert loaded == [], loaded
    assert compiled == [], compiled


def test_a_long_draft_is_verified_with_the_collector_on(tmp_path: Path) -> None:
    """The collector is paused for drafts of a page or so, whose run is short
    (``ONE_PAGE_BYTES``); a longer draft's run keeps it, as every other command does."""
    import subprocess
    import sys
    import textwrap

    from citeledger.commands._quick_verify import ONE_PAGE_BYTES
    from tests.helpers import ROOT

    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    filler = "Plain words without a claim to cite.\n\n" * (ONE_PAGE_BYTES // 30)
    (tmp_path / "draft.md").write_text(filler + DRAFT, encoding="utf-8")
    probe = textwrap.dedent(
        f"""
        import gc, sys
        sys.path[:0] = [{str(ROOT)!r}]
        from citeledger import pandoc_start
        spawn, paused = pandoc_start.spawn, []

        def spying(cmd, env):
            paused.append(not gc.isenabled())
            return spawn(cmd, env)

        pandoc_start.spawn = spying
        from citeledger.cli import main
        main(["verify", "draft.md"])
        print("paused", paused, gc.isenabled())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=citeledger_env(unset=OWN_VARS),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "paused [False] True", done.stdout
