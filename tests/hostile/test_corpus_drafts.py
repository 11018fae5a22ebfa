"""The injection corpus's hostile drafts (tests/fixtures/injection.json, ``hostile_drafts``): each
is built to its output and refused in one line, with the secret beside the draft's folder in no
output and no message."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, run_citeledger

CORPUS = FIXTURES / "injection.json"
SECRET = "SECRET-KEY-7f3a9c"
# A 1x1 PNG: the secret image is a real image, so only the confinement keeps it out.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c49444154789c63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


def _drafts() -> list[dict[str, str]]:
    return list(json.loads(CORPUS.read_text(encoding="utf-8"))["hostile_drafts"])


@pytest.mark.parametrize("case", _drafts(), ids=lambda c: c["name"])
def test_a_hostile_draft_from_the_corpus_is_refused_and_reads_nothing(
    case: dict[str, str], tmp_path: Path
) -> None:
    engine = case.get("engine")
    if engine and shutil.which(engine) is None and os.environ.get("CI") != "true":
        pytest.skip(f"needs {engine}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "secret.png").write_bytes(PNG)
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    text = case["draft"].replace("{outside}", str(outside))
    (draft / "d.md").write_text(f"# Report\n\n{text}\n")
    # Built as a trusted draft: the confinement holds for the author's own draft too (an
    # untrusted one is refused sooner: tests/hostile/test_trust_draft.py).
    args = ["convert", "d.md", "-o", case["output"], "--trust-draft"]
    if engine:
        args += ["--pdf-engine", engine]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    done = run_citeledger(*args, cwd=draft, env=env, timeout=300)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    assert SECRET not in done.stdout + done.stderr
    line = [ln for ln in done.stderr.splitlines() if ln.strip()][-1]
    assert case["refusal"] in line, line
    assert not (draft / case["output"]).exists()
