"""The package as an index receives it: an sdist and a wheel that ``twine check --strict``
accepts, with the metadata a user's installer and the index's page read (an SPDX licence, the
README as markdown, the project's URLs), the templates inside the wheel and the console scripts
declared; and the repository's URL named alike wherever it is written."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

from citeledger.verify.ci_formats import README_URL
from tests.helpers import ROOT, need


def checkout_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel built from a copy of this checkout (a build writes into its
    source folder), the wheel from the sdist, as ``python -m build`` does."""
    need(importlib.util.find_spec("build") is not None, "build")
    need(shutil.which("git") is not None, "git")
    source = tmp_path_factory.mktemp("source")
    for name in checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # A deprecated form in pyproject.toml is a warning today and a failed build tomorrow.
    assert "SetuptoolsDeprecationWarning" not in done.stdout + done.stderr
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.mark.slow
def test_twine_accepts_the_sdist_and_the_wheel(dists: dict[str, Path]) -> None:
    twine = shutil.which("twine")
    need(twine is not None, "twine")
    assert twine is not None
    done = subprocess.run(
        [twine, "check", "--strict", str(dists["sdist"]), str(dists["wheel"])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


@pytest.mark.slow
def test_the_wheel_carries_the_metadata_templates_and_console_scripts(
    dists: dict[str, Path],
) -> None:
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = wheel.namelist()
        (meta_name,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(wheel.read(meta_name).decode("utf-8"))
        (scripts_name,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = wheel.read(scripts_name).decode("utf-8")
    assert meta["License-Expression"] == "MIT"
    assert meta["Description-Content-Type"] == "text/markdown"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls["Documentation"] == README_URL
    assert "Programming Language :: Python :: 3 :: Only" in meta.get_all("Classifier")
    assert "citeledger/templates/reference.docx" in names
    assert "citeledger/templates/latex-report.tex" in names
    # `citeledger` is a script of its own (scripts/citeledger): pip's script for an entry point
    # would import re before citeledger starts.
    assert "citeledger = citeledger.cli:main" not in scripts
    assert "pandoc-citeledger = citeledger.filters.main:main" in scripts
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        (script,) = (n for n in names if n.endswith(".data/scripts/citeledger"))
        text = wheel.read(script).decode("utf-8")
    assert text.startswith("#!python\n")  # the installer points it at the environment's Python
    imported = {
        alias.name
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported == {"sys", "main"}  # sys, and citeledger.cli's main: no re


@pytest.mark.slow
def test_the_sdist_holds_the_package_and_no_half_test_suite(dists: dict[str, Path]) -> None:
    with tarfile.open(dists["sdist"]) as sdist:
        names = [n.split("/", 1)[1] for n in sdist.getnames() if "/" in n]
    assert {"README.md", "pyproject.toml", "citeledger/cli.py"} <= set(names)
    assert not [n for n in names if n.startswith("tests/")]


def test_the_repository_url_is_one_url_wherever_it_is_written() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    repo = project["urls"]["Repository"]
    assert README_URL == f"{repo}/blob/main/README.md" == project["urls"]["Documentation"]
    workflow = yaml.safe_load(
        (ROOT / "examples" / "github-actions" / "citeledger.yml").read_text(encoding="utf-8")
    )
    assert workflow["env"]["CITELEDGER_PACKAGE"].startswith(f"citeledger @ git+{repo}@")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"git+{repo}" in readme
    assert not re.search(r"github\.com/(?!citeledger/citeledger\b)[\w-]+/citeledger", readme)
