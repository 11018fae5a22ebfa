"""citeledger in the tools a writing project already runs, for real: the pre-commit hook this
repository offers (``pre-commit try-repo`` and a refused ``git commit``), the GitHub Actions
workflow example (its YAML parses and every ``run:`` command runs here), and the README's
"In your pipeline" commands, run as written in a copy of the project.

The hook repository is a git repository made in tmp from this checkout's files as they are on
disk (committed or not), so the hook under test is the one being changed. pre-commit installs
it into a virtualenv of its own from the package index, as it does for a user: once per module
run (``PRE_COMMIT_HOME`` is shared by the tests here).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from citeledger.pandoc import pandoc_path
from tests.helpers import ROOT, make_ledger, need

WORKFLOW = ROOT / "examples" / "github-actions" / "citeledger.yml"
README = ROOT / "README.md"
HOOK_ID = "citeledger-verify"

SOURCES = [
    {"id": 1, "url": "https://a.org/ice", "title": "Ice", "accessed": "2026-01-01"},
    {"id": 2, "url": "https://a.org/water", "title": "Water", "accessed": "2026-01-01"},
]
GOOD = (
    "# Ice\n\nIce floats on water.[1] Water is densest near four degrees.[2]\n\n"
    "## Sources\n\n[1] https://a.org/ice — Ice\n[2] https://a.org/water — Water\n"
)
BAD = GOOD.replace("Ice floats on water.[1]", "Ice floats on water.[1] Bears hunt on it.[7]")


def require(tool: str) -> str:
    found = shutil.which(tool, path=_env()["PATH"])
    need(found is not None, tool)
    assert found is not None
    return found


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CITELEDGER", "HERMES", "GIT_", "PRE_COMMIT"))
        and k not in ("MAKEFLAGS", "MFLAGS", "VIRTUAL_ENV")
    }
    # The console scripts live beside this interpreter; ``pandoc`` in a command is the one
    # citeledger runs (a machine with pip alone has no other).
    path = [str(Path(sys.executable).parent), str(Path(pandoc_path()).parent), env.get("PATH", "")]
    env["PATH"] = os.pathsep.join(path)
    env.update(
        GIT_AUTHOR_NAME="Test Writer",
        GIT_AUTHOR_EMAIL="writer@example.org",
        GIT_COMMITTER_NAME="Test Writer",
        GIT_COMMITTER_EMAIL="writer@example.org",
        GIT_CONFIG_NOSYSTEM="1",
    )
    env.update(extra)
    return env


def run(
    cmd: list[str] | str, cwd: Path, env: dict[str, str], timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    if isinstance(cmd, str):
        cmd = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", cmd]
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def checkout_files() -> list[str]:
    """This checkout's files as a clone would have them, plus new ones not yet committed."""
    git = require("git")
    listed = subprocess.run(
        [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def copy_checkout(dest: Path) -> Path:
    for name in checkout_files():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    return dest


def commit_all(repo: Path, env: dict[str, str], message: str = "snapshot") -> str:
    for cmd in (["git", "add", "-A"], ["git", "commit", "-q", "--no-verify", "-m", message]):
        done = run(cmd, repo, env)
        assert done.returncode == 0, done.stderr
    return run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()


def git_init(repo: Path, env: dict[str, str]) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    done = run(["git", "init", "-q", "-b", "main"], repo, env)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The hook repository (this checkout, committed in tmp), its commit and the pre-commit
    home its virtualenv is built in once."""
    require("git")
    require("pre-commit")
    env = _env()
    repo = copy_checkout(tmp_path_factory.mktemp("hook-repo"))
    git_init(repo, env)
    rev = commit_all(repo, env)
    home = tmp_path_factory.mktemp("pre-commit-home")
    return {"repo": str(repo), "rev": rev, "env": _env(PRE_COMMIT_HOME=str(home))}


@pytest.fixture
def drafts(hooks: dict[str, Any], tmp_path: Path) -> Path:
    """A writing project in git: a ledger and a draft that cites it correctly."""
    folder = tmp_path / "drafts"
    git_init(folder, hooks["env"])
    make_ledger(folder / "ledger.json", SOURCES)
    (folder / "report.md").write_text(GOOD, encoding="utf-8")
    commit_all(folder, hooks["env"], "the ledger")
    return folder


# pre-commit --------------------------------------------------------------------------------


def test_hook_file_offers_citeledger_verify_on_markdown_drafts() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = (h for h in hooks if h["id"] == HOOK_ID)
    assert hook["language"] == "python" and hook["entry"] == "citeledger verify"
    pattern = re.compile(hook["files"])
    assert all(pattern.search(n) for n in ("a.md", "d/B.MD", "x.markdown", "r.qmd", "r.Rmd"))
    assert not any(pattern.search(n) for n in ("ledger.json", "a.md.bak", "notes.txt"))


@pytest.mark.slow
def test_try_repo_refuses_an_unknown_id_with_the_finding_and_passes_a_good_draft(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    (repo / "report.md").write_text(BAD, encoding="utf-8")
    run(["git", "add", "report.md"], repo, env)
    refused = run(["pre-commit", "try-repo", hooks["repo"], HOOK_ID], repo, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert "report.md:3:42: citations not in the ledger (hallucinated or renumbered): [7]" in out
    assert "Traceback" not in out
    (repo / "report.md").write_text(GOOD.replace("four degrees", "4 °C"), encoding="utf-8")
    run(["git", "add", "report.md"], repo, env)
    passed = run(["pre-commit", "try-repo", hooks["repo"], HOOK_ID], repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"citeledger verify\.+Passed", passed.stdout)


@pytest.mark.slow
def test_installed_hook_refuses_the_commit_and_lets_the_fixed_one_through(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    config = {
        "repos": [
            {
                "repo": hooks["repo"],
                "rev": hooks["rev"],
                "hooks": [{"id": HOOK_ID, "args": ["--ledger", "ledger.json", "--evidence"]}],
            }
        ]
    }
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    installed = run(["pre-commit", "install"], repo, env)
    assert installed.returncode == 0, installed.stderr
    head = run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()

    (repo / "report.md").write_text(BAD, encoding="utf-8")
    run(["git", "add", "-A"], repo, env)
    refused = run(["git", "commit", "-m", "cite a bear"], repo, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "report.md:3:42: citations not in the ledger (hallucinated or renumbered): [7]" in out
    # --evidence came through args: the cited sources carry no quote.
    assert "cited sources carry no verbatim evidence quote" in out
    assert run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip() == head

    quoted = [dict(s, quotes=[{"text": "t", "added": "2026-01-01"}]) for s in SOURCES]
    make_ledger(repo / "ledger.json", quoted)
    (repo / "report.md").write_text(GOOD, encoding="utf-8")
    run(["git", "add", "-A"], repo, env)
    passed = run(["git", "commit", "-m", "cite what the ledger holds"], repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip() != head


# The GitHub Actions workflow example -------------------------------------------------------


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps() -> list[dict[str, Any]]:
    (job,) = workflow()["jobs"].values()
    return list(job["steps"])


def test_workflow_parses_and_installs_verifies_with_annotations_and_keeps_artifacts() -> None:
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)
    uses = [s["uses"].split("@")[0] for s in steps() if "uses" in s]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    assert "actions/upload-artifact" in uses
    runs = [s["run"] for s in steps() if "run" in s]
    assert "pip install" in runs[0]
    assert any("citeledger verify" in r and "--format github" in r for r in runs)
    assert any("--format sarif" in r for r in runs)


@pytest.mark.slow
def test_every_run_command_of_the_workflow_runs_here(tmp_path: Path) -> None:
    """The steps in order, in a copy of this repository, as the runner's bash runs them; the
    install goes into a virtualenv that sees this interpreter's packages, so citeledger itself
    is what the step installs, and the later steps run that installation."""
    require("make")
    project = copy_checkout(tmp_path / "repo")
    venv = tmp_path / "venv"
    env = _env(**{k: str(v) for k, v in (workflow().get("env") or {}).items()})
    made = run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path, env)
    assert made.returncode == 0, made.stderr
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env["PATH"]])
    env["VIRTUAL_ENV"] = str(venv)
    for step in steps():
        if "run" not in step:
            continue
        done = run(step["run"], project, env)
        assert done.returncode == 0, (
            f"{step.get('name')}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
        if "--format github" in step["run"]:
            assert "::error" not in done.stdout and "::warning" not in done.stdout, done.stdout
    assert (venv / "bin" / "citeledger").is_file(), "the install step installed no citeledger"
    for sarif in (project / "sarif").glob("*.sarif"):
        assert json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert len(list((project / "sarif").glob("*.sarif"))) == 3
    (upload,) = (s for s in steps() if s.get("uses", "").startswith("actions/upload-artifact"))
    kept = glob.glob(os.path.join(project, upload["with"]["path"], "**"), recursive=True)
    assert any(p.endswith("report.docx") for p in kept) and any(p.endswith(".pptx") for p in kept)


# The README's "In your pipeline" section ---------------------------------------------------


def pipeline_section() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^## In your pipeline\n(.*?)(?=^## )", text, re.DOTALL | re.MULTILINE)
    assert found, 'README.md needs an "In your pipeline" section'
    return found.group(1)


def fenced(section: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", section, re.DOTALL | re.MULTILINE)


def commands(section: str) -> list[str]:
    out = []
    for block in fenced(section, "sh"):
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def test_readme_pipeline_section_covers_make_pre_commit_github_actions_and_panflute() -> None:
    section = pipeline_section()
    cmds = " ".join(commands(section))
    for needle in ("make -C examples", "pre-commit run", "--format github", "--filter ./"):
        assert needle in cmds, needle
    assert "examples/github-actions/citeledger.yml" in section
    assert len(fenced(section, "yaml")) == 1 and len(fenced(section, "python")) == 1


@pytest.mark.slow
def test_readme_pipeline_commands_run_against_the_example(
    hooks: dict[str, Any], tmp_path: Path
) -> None:
    """Every command of the section, as written, in a git copy of the project; the hook
    configuration is the README's with its placeholders (repository and rev) filled in, and
    the panflute filter is the README's script under the name the commands give it."""
    require("make")
    section = pipeline_section()
    env = hooks["env"]
    project = copy_checkout(tmp_path / "project")
    config = yaml.safe_load(fenced(section, "yaml")[0])
    (entry,) = config["repos"]
    entry.update(repo=hooks["repo"], rev=hooks["rev"])
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    cmds = commands(section)
    (name,) = {m for c in cmds for m in re.findall(r"--filter \./(\S+\.py)", c)}
    (project / name).write_text(fenced(section, "python")[0], encoding="utf-8")
    git_init(project, env)
    commit_all(project, env)
    outputs = []
    for cmd in cmds:
        done = run(cmd, project, env)
        outputs.append(done.stdout + done.stderr)
        assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    joined = "\n".join(outputs)
    assert re.search(r"citeledger verify.*\.+Passed", joined), joined[-3000:]
    assert "::error" not in joined
    sarif = [p for p in project.glob("*.sarif")]
    assert sarif and json.loads(sarif[0].read_text(encoding="utf-8"))["version"] == "2.1.0"
    html = [p for p in project.glob("*.html")]
    assert html and 'href="#src-1"' in html[0].read_text(encoding="utf-8")
    assert (project / "examples/deck/out/deck.pptx").is_file()
