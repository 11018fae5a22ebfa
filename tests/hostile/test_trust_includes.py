"""The draft as data, in the formats whose readers include files: an untrusted draft's include
directive (Org's ``#+INCLUDE``, LaTeX's ``\\input``, reStructuredText's ``include``) read any
file pandoc could open, outside the draft's folder too, into every output, and an HTML draft's
iframe was fetched while verify read it. pandoc now reads an untrusted draft under
``--sandbox``, and again without it only when every file its includes name (and theirs name)
is inside its folder, links resolved: an include of anything else is refused in one line at
its place (its text, and what it cites, would otherwise be lost with exit 0), and nothing is
fetched; ``--trust-draft`` reads the author's own includes wherever they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile import test_trust_draft as trust
from tests.hostile.test_trust_draft import SECRET, Loopback, cli, one_line, write

# test_trust_draft's fixtures, by the names the tests ask for.
folder = trust.folder
server = trust.server

DRAFTS = {
    "org": ("d.org", '* Notes\n\nIce floats on water.[1]\n\n#+INCLUDE: "{path}"\n'),
    "latex": (
        "d.tex",
        "\\documentclass{{article}}\n\\begin{{document}}\nIce floats on water.[1]\n\n"
        "\\input{{{path}}}\n\\end{{document}}\n",
    ),
    "rst": ("d.rst", "Notes\n=====\n\nIce floats on water.[1]\n\n.. include:: {path}\n"),
}
LINES = {"org": 5, "latex": 5, "rst": 6}


def _outputs(folder: Path) -> str:
    return "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in (".html", ".md") and p.name != "secret.txt"
    )


@pytest.mark.parametrize("fmt", sorted(DRAFTS))
@pytest.mark.parametrize("verb", ["verify", "convert", "wiki", "import"])
def test_an_untrusted_drafts_include_of_a_file_outside_is_refused_at_its_line(
    folder: Path, fmt: str, verb: str
) -> None:
    name, text = DRAFTS[fmt]
    secret = folder.parent / "outside" / "secret.txt"
    write(folder, text.format(path=secret), name)
    args = {
        "verify": ["verify", name],
        "convert": ["convert", name, "-o", "d.html"],
        "wiki": ["wiki", name, "-o", "site"],
        "import": ["import", name, "-o", "imported.md"],
    }[verb]
    done = cli(*args, cwd=folder)
    one_line(done, f"{name}:{LINES[fmt]}:", "includes", str(secret), "--trust-draft")
    assert SECRET not in done.stdout + done.stderr
    assert SECRET not in _outputs(folder)


@pytest.mark.parametrize("fmt", sorted(DRAFTS))
@pytest.mark.parametrize("trust", [[], ["--trust-draft"]])
def test_an_include_inside_the_drafts_folder_is_read_and_what_it_cites_is_verified(
    folder: Path, fmt: str, trust: list[str]
) -> None:
    name, text = DRAFTS[fmt]
    part = {"org": "part.org", "latex": "part.tex", "rst": "part.rst"}[fmt]
    write(folder, "Sea water holds salt, the survey found.[2]\n", part)
    write(folder, text.format(path=part), name)
    done = cli("verify", "--format", "json", name, *trust, cwd=folder)
    # It fails for want of a Sources block only (``render --replace-in`` writes one).
    report = json.loads(done.stdout)
    assert report["cited_ids"] == [1, 2], done.stdout
    assert {f["code"] for f in report["findings"] if f["level"] == "FAIL"} <= {
        "missing-sources-block"
    }
    built = cli("convert", name, "-o", "d.html", *trust, cwd=folder)
    assert built.returncode == 0, built.stderr
    assert 'id="cite-2-1"' in (folder / "d.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["a link to a file outside", "an include naming one outside"])
def test_an_include_inside_the_folder_that_leads_outside_is_refused(folder: Path, how: str) -> None:
    secret = folder.parent / "outside" / "secret.txt"
    if how == "a link to a file outside":
        (folder / "part.org").symlink_to(secret)
    else:
        write(folder, f'* Part\n\n#+INCLUDE: "{secret}"\n', "part.org")
    write(folder, '* Notes\n\nIce floats on water.[1]\n\n#+INCLUDE: "part.org"\n', "d.org")
    for args in (["verify", "d.org"], ["convert", "d.org", "-o", "d.html"]):
        done = cli(*args, cwd=folder)
        one_line(done, "d.org:5:", "part.org", "outside the draft's folder", "--trust-draft")
        assert SECRET not in done.stdout + done.stderr + _outputs(folder)


def test_a_trusted_drafts_include_of_a_missing_file_is_one_line(folder: Path) -> None:
    write(folder, '* Notes\n\nIce floats on water.[1]\n\n#+INCLUDE: "gone.org"\n', "d.org")
    done = cli("verify", "d.org", "--trust-draft", cwd=folder)
    one_line(done, "d.org:5:", "gone.org", "could not read")


def test_an_html_drafts_iframe_is_not_fetched_while_it_is_read(
    folder: Path,
    server: Loopback,
) -> None:
    write(
        folder,
        "<html><body><p>Ice floats on water.[1]</p>"
        f'<iframe src="{server.url("/frame")}"></iframe>'
        "<h2>Sources</h2><p>[1] https://example.org/ice</p></body></html>\n",
        "d.html",
    )
    assert cli("verify", "d.html", cwd=folder).returncode == 0
    assert cli("convert", "d.html", "-o", "out.docx", cwd=folder).returncode == 0
    assert server.requests == []


def test_a_trusted_draft_includes_a_file_anywhere(folder: Path) -> None:
    secret = folder.parent / "outside" / "secret.txt"
    write(folder, f'* Notes\n\nIce floats on water.[1]\n\n#+INCLUDE: "{secret}"\n', "d.org")
    done = cli("convert", "d.org", "-o", "d.html", "--trust-draft", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert SECRET in (folder / "d.html").read_text(encoding="utf-8")


def test_an_included_file_that_names_an_address_to_fetch_is_refused(
    folder: Path, server: Loopback
) -> None:
    # Inside the folder, but its table would be fetched by the unsandboxed read that follows.
    write(folder, f"T\n=\n\n.. csv-table:: x\n   :url: {server.url('/t.csv')}\n", "part.rst")
    write(folder, "Top\n===\n\nIce floats on water.[1]\n\n.. include:: part.rst\n", "d.rst")
    one_line(cli("verify", "d.rst", cwd=folder), "d.rst:6:", "part.rst", "an address")
    assert server.requests == []


def test_a_latex_papers_sections_are_read_from_its_folder_and_named_from_elsewhere(
    folder: Path,
) -> None:
    # The common layout: main.tex inputs sections/x without the suffix, a section inputs
    # another; LaTeX (and pandoc) names them from the folder it runs in.
    (folder / "sections").mkdir()
    write(
        folder,
        "\\documentclass{article}\n\\begin{document}\n\\input{sections/intro}\n"
        "\\input{sections/method}\n\\end{document}\n",
        "main.tex",
    )
    write(folder, "\\section{Intro}\nIce floats on water.[1]\n", "sections/intro.tex")
    write(folder, "Sea water holds salt.[2]\n\\input{sections/detail}\n", "sections/method.tex")
    write(folder, "A detail, the survey says.[2]\n", "sections/detail.tex")
    done = cli("verify", "--format", "json", "main.tex", cwd=folder)
    assert json.loads(done.stdout)["cited_ids"] == [1, 2], done.stderr
    elsewhere = cli("--ledger", "draft/ledger.json", "verify", "draft/main.tex", cwd=folder.parent)
    line = one_line(elsewhere, "draft/main.tex:", "is not there", "the paper's folder")
    assert "outside" not in line
