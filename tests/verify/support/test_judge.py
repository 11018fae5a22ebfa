"""The optional judge of ``verify --support``: a local ONNX classifier with its tokenizer
(a tiny one built here: :mod:`.tiny_judge`, whose scores are known ahead), or a program that
scores JSON lines. What is pinned is the pipeline (pairs, batches, chunks, labels, findings,
errors), never an accuracy a test cannot measure."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from citeledger.errors import JudgeError
from citeledger.verify.support.evidence import chunks
from citeledger.verify.support.judge import ModelJudge
from tests.helpers import need
from tests.verify.support.tiny_judge import build, expected_score

WORDS = " ".join(
    [
        "ice floats on water because it is less dense than liquid frozen lakes freeze from",
        "the top down fish survive winter under cats can fly over moon made of cheese sea",
    ]
).split()


@pytest.fixture(autouse=True)
def _support_extra() -> None:
    """The support extra (onnxruntime, tokenizers) and onnx, which builds the tiny model."""
    present = all(importlib.util.find_spec(m) for m in ("onnxruntime", "tokenizers", "onnx"))
    need(present, "onnxruntime, tokenizers and onnx (pip install 'citeledger[support,test]')")


QUOTE = "Ice is less dense than liquid water, so ice floats on water."
DRAFT = """# Ice

Ice floats on water because it is less dense.[1] Cats can fly over the moon.[1]

## Sources

[1] https://example.org/ice — Ice
"""


def ledger(folder: Path, quotes: dict[int, list[str]]) -> Path:
    sources = [
        {
            "id": i,
            "url": f"https://example.org/{'ice' if i == 1 else i}",
            "title": f"Source {i}",
            "quotes": [{"text": q, "added": "2026-12-01"} for q in texts],
        }
        for i, texts in quotes.items()
    ]
    path = folder / "ledger.json"
    path.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    return path


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return build(tmp_path / "judge", WORDS)


def findings(out: str, code: str) -> list[dict[str, object]]:
    return [f for f in json.loads(out)["findings"] if f["code"] == code]


def test_model_judge_flags_the_sentence_its_evidence_does_not_carry(tmp_path, cli, model) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    done = cli("verify", "d.md", "--support-model", str(model), "--format", "json")
    assert done.code == 0, done.err
    low = findings(done.out, "unsupported-claim")
    # "Cats can fly over the moon": none of its words in the quote; the first sentence: all.
    assert [f["location"] for f in low] == ["d.md:3:77"]
    assert f"{expected_score(0):.2f}" in str(low[0]["message"])
    assert "under 0.50" in str(low[0]["message"])
    assert json.loads(done.out)["stats"]["claims_to_look_at"] == 1


def test_threshold_decides_which_scores_are_findings(tmp_path, cli, model) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    args = ("verify", "d.md", "--support-model", str(model), "--format", "json")
    strict = cli(*args, "--support-threshold", "0.99")
    assert len(findings(strict.out, "unsupported-claim")) == 2


def test_pairs_run_in_batches_with_progress_and_labels_from_the_config(model) -> None:
    judge = ModelJudge(model, batch=4)
    assert judge.label == 1  # "supported", not "unsupported", though both hold the word
    heard: list[tuple[int, int]] = []
    pairs = [("ice floats", "ice floats on water")] * 9 + [("cats fly", "ice floats")]
    scores = judge.scores(pairs, lambda done, total: heard.append((done, total)))
    assert heard == [(4, 10), (8, 10), (10, 10)]
    assert scores[:9] == pytest.approx([expected_score(1.0)] * 9)
    assert scores[9] == pytest.approx(expected_score(0.0))


def test_evidence_longer_than_the_window_is_cut_at_sentences_and_the_best_chunk_wins(
    tmp_path, cli
) -> None:
    model = build(tmp_path / "small", WORDS, window=32)
    filler = "Frozen lakes freeze from the top down. Fish survive winter under the ice. " * 3
    ledger(tmp_path, {1: [filler + QUOTE]})
    judge = ModelJudge(model)
    assert judge.window == 32
    claim = "Ice floats on water because it is less dense."
    pieces = chunks(filler + QUOTE, lambda text: judge.fits(claim, text))
    assert len(pieces) > 2 and all(p.endswith(".") for p in pieces)
    assert pieces[-1] == QUOTE and all(judge.fits(claim, p) for p in pieces)
    (tmp_path / "d.md").write_text(DRAFT.replace(" Cats can fly over the moon.[1]", ""))
    done = cli("verify", "d.md", "--support-model", str(model), "--format", "json")
    # Read whole (truncated to the window) the quote's last sentence would be cut off.
    assert findings(done.out, "unsupported-claim") == [], done.out


def test_empty_evidence_is_never_supported_and_is_not_sent_to_the_judge(tmp_path, cli) -> None:
    ledger(tmp_path, {1: []})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    judge = tmp_path / "judge.py"
    judge.write_text("import sys\nsys.exit('asked')\n", encoding="utf-8")
    done = cli("verify", "d.md", "--support-judge", f"{sys.executable} {judge}", "--format", "json")
    assert done.code == 0, done.err
    none = findings(done.out, "unsupported-claim")
    assert len(none) == 2 and all("no evidence" in str(f["message"]) for f in none)


def test_a_judge_command_reads_json_lines_and_writes_a_score_a_line(tmp_path, cli) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    seen = tmp_path / "seen.jsonl"
    judge = tmp_path / "judge.py"
    judge.write_text(
        "import json, sys\n"
        f"log = open({str(seen)!r}, 'w')\n"
        "for line in sys.stdin:\n"
        "    pair = json.loads(line)\n"
        "    log.write(line)\n"
        "    print(0.9 if 'floats' in pair['claim'] else 0.1, flush=True)\n",
        encoding="utf-8",
    )
    done = cli("verify", "d.md", "--support-judge", f"{sys.executable} {judge}", "--format", "json")
    pairs = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines()]
    assert pairs == [
        {"claim": "Ice floats on water because it is less dense.", "evidence": QUOTE},
        {"claim": "Cats can fly over the moon.", "evidence": QUOTE},
    ]
    low = findings(done.out, "unsupported-claim")
    assert [f["location"] for f in low] == ["d.md:3:77"] and "0.10" in str(low[0]["message"])


@pytest.mark.parametrize(
    ("program", "said"),
    [
        ("print(0.5)", "wrote 1 score(s) for 2 pair(s)"),
        ("import sys\nfor _ in sys.stdin: print('yes')", "is 'yes', not a score from 0 to 1"),
        ("import sys\nsys.exit('model weights not found')", "failed: model weights not found"),
    ],
)
def test_a_judge_command_out_of_shape_is_one_line_and_exit_2(
    tmp_path, cli, program: str, said: str
) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    judge = tmp_path / "judge.py"
    judge.write_text(program + "\n", encoding="utf-8")
    done = cli("verify", "d.md", "--support-judge", f"{sys.executable} {judge}")
    assert done.code == 2 and done.out == ""
    assert said in done.err and len(done.err.strip().splitlines()) == 1
    assert "Traceback" not in done.err


def test_an_unreadable_model_folder_is_one_line_and_exit_2(tmp_path, cli, model) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    (broken / "tokenizer.json").write_bytes((model / "tokenizer.json").read_bytes())
    no_tokenizer = tmp_path / "no-tokenizer"
    no_tokenizer.mkdir()
    (no_tokenizer / "model.onnx").write_bytes((model / "model.onnx").read_bytes())
    for folder, said in (
        (tmp_path / "absent", "no such folder"),
        (no_tokenizer, "no tokenizer.json"),
        (broken, "model.onnx cannot be loaded"),
    ):
        done = cli("verify", "d.md", "--support-model", str(folder))
        assert done.code == 2 and done.out == "", folder
        assert said in done.err and len(done.err.strip().splitlines()) == 1


def test_without_the_extra_the_model_judge_says_how_to_install_it(
    model, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(JudgeError, match="onnxruntime and tokenizers are not installed") as err:
        ModelJudge(model)
    assert "citeledger[support]" in (err.value.hint or "")


def test_a_drafts_front_matter_cannot_name_a_judge(tmp_path, cli) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    judge = tmp_path / "judge.py"
    judge.write_text("raise SystemExit('ran')\n", encoding="utf-8")
    front = f"---\nciteledger:\n  support-judge: {sys.executable} {judge}\n---\n\n"
    (tmp_path / "d.md").write_text(front + DRAFT, encoding="utf-8")
    done = cli("verify", "d.md", "--support", "--format", "json")
    assert done.code == 0, done.err
    assert all("judge" not in str(f["message"]) for f in json.loads(done.out)["findings"])


def test_the_project_file_names_the_judge_and_turns_the_check_on(tmp_path, cli) -> None:
    ledger(tmp_path, {1: [QUOTE]})
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    judge = tmp_path / "judge.py"
    judge.write_text("import sys\nfor _ in sys.stdin: print(0.2, flush=True)\n")
    command = f"{sys.executable} {judge}".replace("\\", "/")
    (tmp_path / "citeledger.toml").write_text(f'support-judge = "{command}"\n', encoding="utf-8")
    done = cli("verify", "d.md", "--format", "json")
    low = findings(done.out, "unsupported-claim")
    assert len(low) == 2 and all("0.20" in str(f["message"]) for f in low)
