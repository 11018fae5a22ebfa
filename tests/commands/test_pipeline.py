"""citeledger in the tools a writing project already runs, for real: the pre-commit hooks this
repository offers (``pre-commit try-repo``, ``pre-commit run`` and a refused ``git commit``), the
GitHub Actions workflow example (its YAML parses and every ``run:`` command runs here; GitHub's
rules are checked in test_actions_example.py), and the manual's "In your pipeline" commands,
run as written in a copy of the project.

The hook repository is a git repository made in tmp from this checkout's files as they are on
disk (committed or not), so the hook under test is the one being changed. pre-commit installs
it into a virtualenv of its own from the package index, as it does for a user: once per module
run (``PRE_COMMIT_HOME`` is shared by the tests here).
"""

from __future__ import annotations

import atexit
import functools
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import ROOT, make_ledger, need

WORKFLOW = ROOT / "examples" / "github-actions" / "citeledger.yml"
# The manual's page of pipelines (make, pre-commit, GitHub Actions, pandoc, panflute).
PIPELINE_PAGE = ROOT / "docs" / "teams" / "pipeline.md"
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
    # The console scripts live beside this interpreter. A machine with pip alone has no
    # ``pandoc`` command: the one on this machine's PATH is shadowed by one that fails, so a
    # recipe that needs pandoc must say ``citeledger pandoc``.
    path = [str(Path(sys.executable).parent), _no_pandoc(), env.get("PATH", "")]
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


@functools.cache
def _no_pandoc() -> str:
    folder = Path(tempfile.mkdtemp(prefix="no-pandoc-"))
    atexit.register(shutil.rmtree, folder, True)
    stub = folder / "pandoc"
    stub.write_text("#!/bin/sh\necho 'pandoc: command not found' >&2\nexit 127\n")
    stub.chmod(0o755)
    return str(folder)


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


def manifest() -> dict[str, dict[str, Any]]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {h["id"]: h for h in hooks}


def picks(hook: dict[str, Any], name: str, tags: set[str] | None = None) -> bool:
    """Whether pre-commit hands ``name`` to ``hook``: its ``files``, ``types`` and
    ``types_or`` all agree (they are ANDed), read with identify's tags for the name (or
    ``tags``, for a file whose tags come from its bytes)."""
    from identify import identify

    tags = identify.tags_from_filename(name) if tags is None else tags
    if not re.search(hook.get("files", ""), name):
        return False
    if not set(hook.get("types", [])) <= tags:
        return False
    return not hook.get("types_or") or bool(set(hook["types_or"]) & tags)


def test_draft_hooks_pick_drafts_by_file_type_so_a_projects_files_only_narrows() -> None:
    hooks = manifest()
    drafts = hooks[HOOK_ID]
    assert drafts["language"] == "python" and drafts["entry"] == "citeledger verify"
    assert "files" not in drafts  # a project's `files: ^drafts/` then narrows, never widens
    for name in ("a.md", "d/B.MD", "x.markdown", "r.qmd"):
        assert picks(drafts, name), name
    for name in ("drafts/figure.png", "drafts/ledger.json", "drafts/notes.txt", "a.md.bak"):
        assert not picks(drafts, name), name
    rmd = hooks["citeledger-verify-rmarkdown"]
    assert picks(rmd, "r.Rmd", {"file", "text"}) and picks(rmd, "d/r.rmd", {"file", "text"})
    assert not picks(rmd, "r.Rmd", {"file", "binary"})  # identify has no tag for .Rmd
    assert not picks(rmd, "a.md", {"file", "text"})


def test_draft_hooks_end_their_args_with_a_separator_before_the_file_names() -> None:
    """pre-commit appends the file names after ``args``: the default ``--`` makes a draft
    named ``--ledger=x.md`` a file, not an option."""
    hooks = manifest()
    for hook_id in (HOOK_ID, "citeledger-verify-rmarkdown"):
        assert hooks[hook_id]["args"] == ["--"], hook_id
    assert "--" not in hooks["citeledger-verify-ledger"]["entry"].split()


def test_ledger_hook_runs_on_the_ledger_and_its_evidence_without_file_names() -> None:
    hook = manifest()["citeledger-verify-ledger"]
    assert hook["entry"] == "citeledger verify" and hook["pass_filenames"] is False
    for name in ("ledger.json", "drafts/ledger.json", "ledger.evidence/ab12.txt"):
        assert re.search(hook["files"], name), name
    for name in ("old-ledger.json", "report.md", "ledger.json.bak", "evidence.md"):
        assert not re.search(hook["files"], name), name


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


PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def install_config(repo: Path, hooks: dict[str, Any], *entries: dict[str, Any]) -> None:
    config = {"repos": [{"repo": hooks["repo"], "rev": hooks["rev"], "hooks": list(entries)}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


@pytest.mark.slow
def test_a_projects_files_narrows_the_draft_hook_and_an_image_never_reaches_verify(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    (repo / "drafts").mkdir()
    (repo / "drafts" / "chapter.md").write_text(GOOD, encoding="utf-8")
    (repo / "drafts" / "figure.png").write_bytes(PNG)
    (repo / "drafts" / "notes.txt").write_text("Bears hunt on it.[7]\n", encoding="utf-8")
    (repo / "report.md").write_text(BAD, encoding="utf-8")  # outside drafts/: not checked
    install_config(repo, hooks, {"id": HOOK_ID, "files": "^drafts/"})
    run(["git", "add", "-A"], repo, env)
    passed = run(["pre-commit", "run", "--all-files"], repo, env)
    out = passed.stdout + passed.stderr
    assert passed.returncode == 0, out
    assert re.search(r"citeledger verify\.+Passed", out)
    (repo / "drafts" / "bad.md").write_text(BAD, encoding="utf-8")
    run(["git", "add", "-A"], repo, env)
    refused = run(["pre-commit", "run", "--all-files"], repo, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert "drafts/bad.md:3:42: citations not in the ledger" in out
    assert " report.md:" not in out
    assert "figure.png" not in out and "notes.txt" not in out


@pytest.mark.slow
def test_a_draft_named_like_an_option_is_verified_as_a_file(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    (repo / "--ledger=x.md").write_text(BAD, encoding="utf-8")
    run(["git", "add", "--", "--ledger=x.md"], repo, env)
    refused = run(["pre-commit", "try-repo", hooks["repo"], HOOK_ID], repo, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert "--ledger=x.md:3:42: citations not in the ledger" in out


@pytest.mark.slow
def test_the_ledger_hook_skips_a_commit_that_leaves_the_ledger_alone(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    (repo / "notes.txt").write_text("notes\n", encoding="utf-8")
    run(["git", "add", "notes.txt"], repo, env)
    done = run(["pre-commit", "try-repo", hooks["repo"], "citeledger-verify-ledger"], repo, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"ledger changed\)\.+\(no files to check\)Skipped", done.stdout)


@pytest.mark.slow
def test_a_commit_of_the_ledger_alone_verifies_the_projects_drafts(
    hooks: dict[str, Any], drafts: Path
) -> None:
    env, repo = hooks["env"], drafts
    (repo / "citeledger.toml").write_text('drafts = ["*.md"]\n', encoding="utf-8")
    commit_all(repo, env, "the project's drafts")
    (repo / "ledger.json").write_text(json.dumps({"version": 1, "sources": SOURCES[:1]}))
    run(["git", "add", "ledger.json"], repo, env)
    refused = run(["pre-commit", "try-repo", hooks["repo"], "citeledger-verify-ledger"], repo, env)
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert re.search(r"report\.md:3:\d+: citations not in the ledger .*: \[2\]", out), out


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


def jobs() -> dict[str, dict[str, Any]]:
    return dict(workflow()["jobs"])


def test_workflow_parses_and_installs_verifies_with_annotations_and_keeps_artifacts() -> None:
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)
    for job in jobs().values():
        uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
        assert uses[:2] == ["actions/checkout", "actions/setup-python"]
        runs = [s["run"] for s in job["steps"] if "run" in s]
        assert runs[0] == 'python -m pip install "$CITELEDGER_PACKAGE"'
    verify = [s for s in jobs()["verify"]["steps"] if "run" in s]
    assert any("citeledger verify" in s["run"] and "--format github" in s["run"] for s in verify)
    assert any("--format sarif" in s["run"] for s in verify)
    build = [s.get("uses", "").split("@")[0] for s in jobs()["build"]["steps"]]
    assert "actions/upload-artifact" in build


def matrix_envs(job: dict[str, Any]) -> list[dict[str, str]]:
    """The job's environment once per matrix entry, its ``${{ matrix.x }}`` filled in."""
    entries = job.get("strategy", {}).get("matrix", {}).get("include", [{}])
    matrix = re.compile(r"\$\{\{ matrix\.(\w+) \}\}")
    return [
        {k: matrix.sub(lambda m, e=e: e[m.group(1)], v) for k, v in (job.get("env") or {}).items()}
        for e in entries
    ]


@pytest.mark.slow
def test_every_run_command_of_the_workflow_runs_here(tmp_path: Path) -> None:
    """The jobs in order, each once per matrix entry, in a copy of this repository, as the
    runner's bash runs them. The install step installs this checkout (in place of the
    pinned release the workflow names) into a virtualenv that sees this interpreter's
    packages; the TeX step, a system install, is only checked to be conditional (this
    machine has TeX)."""
    require("make")
    project = copy_checkout(tmp_path / "repo")
    venv = tmp_path / "venv"
    base = _env(**{k: str(v) for k, v in (workflow().get("env") or {}).items()})
    base["CITELEDGER_PACKAGE"] = "."
    made = run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path, base)
    assert made.returncode == 0, made.stderr
    base.pop("PYTHONPATH", None)
    base["PATH"] = os.pathsep.join([str(venv / "bin"), base["PATH"]])
    base["VIRTUAL_ENV"] = str(venv)
    logs = []
    for name in ("verify", "build"):
        job = jobs()[name]
        for job_env in matrix_envs(job):
            env = {**base, **job_env}
            for step in job["steps"]:
                if "run" not in step:
                    continue
                if step["run"].startswith("sudo "):
                    assert step.get("if") == "env.LATEX_PDF == 'true'", step
                    continue
                done = run(step["run"], project, env)
                assert done.returncode == 0, (
                    f"{name} {job_env}: {step.get('name')}:\n"
                    f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
                )
                if "--format github" in step["run"]:
                    assert "::error" not in done.stdout and "::warning" not in done.stdout
                if "--format sarif" in step["run"]:
                    logs.append(json.loads((project / "citeledger.sarif").read_text("utf-8")))
    assert (venv / "bin" / "citeledger").is_file(), "the install step installed no citeledger"
    assert len(logs) == 3 and all(log["version"] == "2.1.0" for log in logs)
    (upload,) = (s for s in jobs()["build"]["steps"] if "upload-artifact" in s.get("uses", ""))
    kept = glob.glob(os.path.join(project, upload["with"]["path"], "**"), recursive=True)
    assert any(p.endswith("report.docx") for p in kept) and any(p.endswith(".pptx") for p in kept)


# The manual's "In your pipeline" page -------------------------------------------------------


def pipeline_section() -> str:
    text = PIPELINE_PAGE.read_text(encoding="utf-8")
    assert text.startswith("# In your pipeline\n"), "docs/teams/pipeline.md: # In your pipeline"
    return text


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


def test_the_pipeline_page_covers_make_pre_commit_github_actions_and_panflute() -> None:
    section = pipeline_section()
    cmds = " ".join(commands(section))
    for needle in ("make -C examples", "pre-commit run", "--format github", "--filter ./"):
        assert needle in cmds, needle
    assert "examples/github-actions/citeledger.yml" in section
    assert len(fenced(section, "yaml")) == 1 and len(fenced(section, "python")) == 1


@pytest.mark.slow
def test_the_pipeline_pages_commands_run_against_the_example(
    hooks: dict[str, Any], tmp_path: Path
) -> None:
    """Every command of the section, as written, in a git copy of the project; the hook
    configuration is the page's with its placeholders (repository and rev) filled in, and
    the panflute filter is the page's script under the name the commands give it."""
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
