"""The GitHub Actions example passes GitHub's rules of today, checked the way a maintainer would:
``zizmor`` (offline, its pedantic persona) and the GitHub workflow schema
(``check-jsonschema --builtin-schema vendor.github-workflows``), plus the rules neither tool
knows: one SARIF upload per category, actions pinned by commit with their version named, TeX
only for a LaTeX PDF, and an install line that works outside this repository. That its
commands run is test_pipeline.py's business."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import yaml

from tests.helpers import ROOT, need

WORKFLOW = ROOT / "examples" / "github-actions" / "citeledger.yml"
PINNED = re.compile(r"^\s*(?:- )?uses: ([\w.-]+/[\w./-]+)@([0-9a-f]{40})  # v(\d+)\.\d+\.\d+$")


def tool(name: str) -> str:
    found = shutil.which(name)
    need(found is not None, name)
    assert found is not None
    return found


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps() -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in workflow()["jobs"].items() for step in job["steps"]]


def test_zizmor_finds_nothing_even_pedantic() -> None:
    done = subprocess.run(
        [tool("zizmor"), "--offline", "--persona", "pedantic", "--no-progress", str(WORKFLOW)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout


def test_the_workflow_is_valid_against_githubs_schema() -> None:
    done = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_sarif_upload_has_a_category_of_its_own() -> None:
    """Since July 2025 code scanning refuses two runs of one tool under one category: one
    upload per matrix entry, each with the entry's own category."""
    uploads = [(job, s) for job, s in steps() if "upload-sarif" in s.get("uses", "")]
    assert uploads
    for job_name, step in uploads:
        job = workflow()["jobs"][job_name]
        entries = job["strategy"]["matrix"]["include"]
        category = step["with"]["category"]
        names = {re.sub(r"\$\{\{ matrix\.name \}\}", e["name"], category) for e in entries}
        assert len(names) == len(entries) > 1, category
        # One log, not a folder of them (a folder's logs would share the category).
        assert step["with"]["sarif_file"].endswith(".sarif")


def test_every_action_is_pinned_by_commit_with_its_version_and_a_current_major() -> None:
    lines = [ln for ln in WORKFLOW.read_text(encoding="utf-8").splitlines() if "uses:" in ln]
    assert lines
    majors = {}
    for line in lines:
        found = PINNED.match(line)
        assert found, f"not pinned by commit with its version in a comment: {line.strip()}"
        majors[found.group(1)] = int(found.group(3))
    # The majors that run on a supported Node (node24); earlier ones run on retired ones.
    assert majors["actions/checkout"] >= 5
    assert majors["actions/setup-python"] >= 6
    assert majors["actions/upload-artifact"] >= 5
    assert majors["github/codeql-action/upload-sarif"] >= 4


def test_least_permissions_no_kept_credentials_and_a_pip_cache() -> None:
    data = workflow()
    assert data["permissions"] == {"contents": "read"}
    for name, job in data["jobs"].items():
        writes = {k for k, v in (job.get("permissions") or {}).items() if v == "write"}
        uploads_sarif = any("upload-sarif" in s.get("uses", "") for s in job["steps"])
        assert writes == ({"security-events"} if uploads_sarif else set()), name
    for _, step in steps():
        uses = step.get("uses", "")
        if uses.startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False
        if uses.startswith("actions/setup-python@"):
            assert step["with"]["cache"] == "pip"


def test_tex_is_installed_only_for_a_latex_pdf() -> None:
    tex = [(job, s) for job, s in steps() if "texlive" in s.get("run", "")]
    assert len(tex) == 1
    job, step = tex[0]
    assert step["if"] == "env.LATEX_PDF == 'true'"
    assert "LATEX_PDF" in workflow()["jobs"][job]["env"]
    assert not any("texlive" in s.get("run", "") for j, s in steps() if j != job)


def test_the_install_line_works_outside_this_repository() -> None:
    package = workflow()["env"]["CITELEDGER_PACKAGE"]
    assert re.fullmatch(r"citeledger @ git\+https://github\.com/[\w.-]+/citeledger@\S+", package)
    installs = [s["run"] for _, s in steps() if "pip install" in s.get("run", "")]
    assert installs and all(r == 'python -m pip install "$CITELEDGER_PACKAGE"' for r in installs)
