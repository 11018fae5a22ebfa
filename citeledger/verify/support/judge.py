"""The optional judge: a model that scores how well evidence supports a claim, 0 to 1.

Two kinds, both local and both named by the user (a flag or the project file, never a
draft's front matter: a draft does not choose what runs on the reviewer's machine):

- :class:`ModelJudge` (``--support-model DIR``): a folder holding an ONNX sequence classifier
  (``model.onnx``, or the folder's one ``.onnx`` file) and its ``tokenizer.json``, run with
  onnxruntime and tokenizers only (the ``citeledger[support]`` extra; no torch). The pair goes
  in as (evidence, claim), the way fact-checking classifiers such as MiniCheck are trained;
  the score is the softmax of the label ``config.json``'s ``id2label`` calls supported
  (``support``, ``entail``, ``consistent``), else of the last label. Pairs are run in batches,
  each padded to its longest; the window is the tokenizer's truncation length, else the
  config's ``max_position_embeddings`` (less two for RoBERTa's offset), else 512 tokens.
- :class:`CommandJudge` (``--support-judge CMD``): any program that reads JSON lines
  ``{"claim": ..., "evidence": ...}`` on its standard input and writes one score a line, in
  order (a user's own model, or a client of a service they trust).

A judge that is missing, cannot load, fails or answers out of shape raises
:class:`~citeledger.errors.JudgeError`: one line, and the run stops; never a silent run
without it.
"""

from __future__ import annotations

import json
import math
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ...errors import JudgeError

INSTALL_HINT = "pip install 'citeledger[support]' (onnxruntime and tokenizers)"
BATCH = 8
DEFAULT_WINDOW = 512
_SUPPORTED_LABELS = ("support", "entail", "consistent", "true", "yes")
# Labels holding one of those words that say the opposite ("unsupported", "not_entailment").
_OPPOSITE_LABELS = ("unsupport", "not", "non", "contra", "refut", "false", "incons")
Progress = Callable[[int, int], None]


class Judge(Protocol):
    """What the check asks of a judge: its name, whether a text fits its window beside a
    claim, and a score per (claim, evidence) pair."""

    name: str

    def fits(self, claim: str, evidence: str) -> bool: ...

    def scores(
        self, pairs: Sequence[tuple[str, str]], progress: Progress | None = None
    ) -> list[float]: ...


class ModelJudge:
    """An ONNX sequence classifier and its tokenizer (see the module docstring)."""

    def __init__(self, folder: Path, batch: int = BATCH) -> None:
        self.name = f"model {folder}"
        self.batch = batch
        if not folder.is_dir():
            raise JudgeError(
                f"--support-model {folder}: no such folder",
                hint="name a folder holding model.onnx and tokenizer.json",
            )
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise JudgeError(
                f"--support-model {folder}: onnxruntime and tokenizers are not installed",
                hint=INSTALL_HINT,
            ) from None
        model = _model_file(folder)
        tokenizer_file = folder / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise JudgeError(
                f"--support-model {folder}: no tokenizer.json in the folder",
                hint="export the model's tokenizer beside it (tokenizer.save('tokenizer.json'))",
            )
        try:
            self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # tokenizers raises its own Exception subclass
            raise JudgeError(
                f"--support-model {folder}: tokenizer.json cannot be read ({_short(exc)})",
                hint="export it again with the tokenizers library",
            ) from None
        try:
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            self.session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime's errors share no public base class
            raise JudgeError(
                f"--support-model {folder}: {model.name} cannot be loaded ({_short(exc)})",
                hint="export the classifier to ONNX again (optimum-cli export onnx)",
            ) from None
        config = _config(folder)
        self.window = _window(self.tokenizer, config)
        self.label = _label(config)
        self.inputs = {i.name: i.type for i in self.session.get_inputs()}
        if "input_ids" not in self.inputs:
            raise JudgeError(
                f"--support-model {folder}: {model.name} takes no input_ids",
                hint="give a sequence classifier exported with its tokenizer's inputs",
            )
        self.tokenizer.no_truncation()
        self._sizes: dict[str, int] = {}

    def _size(self, text: str) -> int:
        if text not in self._sizes:
            self._sizes[text] = len(self.tokenizer.encode(text, add_special_tokens=False).ids)
        return self._sizes[text]

    def fits(self, claim: str, evidence: str) -> bool:
        # Four tokens for a pair's special tokens (<s> A </s></s> B </s>).
        return self._size(claim) + self._size(evidence) + 4 <= self.window

    def scores(
        self, pairs: Sequence[tuple[str, str]], progress: Progress | None = None
    ) -> list[float]:
        import numpy as np

        out: list[float] = []
        self.tokenizer.enable_truncation(self.window)
        pad = self.tokenizer.token_to_id("<pad>")
        self.tokenizer.enable_padding(pad_id=pad if pad is not None else 0)
        try:
            for start in range(0, len(pairs), self.batch):
                batch = pairs[start : start + self.batch]
                encoded = self.tokenizer.encode_batch([(ev, claim) for claim, ev in batch])
                feed: dict[str, Any] = {}
                for name, kind in self.inputs.items():
                    dtype = np.int32 if "int32" in kind else np.int64
                    if name == "input_ids":
                        feed[name] = np.array([e.ids for e in encoded], dtype=dtype)
                    elif name == "attention_mask":
                        feed[name] = np.array([e.attention_mask for e in encoded], dtype=dtype)
                    elif name == "token_type_ids":
                        feed[name] = np.array([e.type_ids for e in encoded], dtype=dtype)
                try:
                    logits = self.session.run(None, feed)[0]
                except Exception as exc:
                    raise JudgeError(
                        f"{self.name} failed on a batch ({_short(exc)})",
                        hint="check that the model is a sequence classifier for this tokenizer",
                    ) from None
                out.extend(_probability(row, self.label, self.name) for row in logits)
                if progress is not None:
                    progress(len(out), len(pairs))
        finally:
            self.tokenizer.no_truncation()
            self.tokenizer.no_padding()
        return out


def _model_file(folder: Path) -> Path:
    if (folder / "model.onnx").is_file():
        return folder / "model.onnx"
    found = sorted(folder.glob("*.onnx"))
    if len(found) != 1:
        what = "no .onnx file" if not found else f"{len(found)} .onnx files and no model.onnx"
        raise JudgeError(
            f"--support-model {folder}: {what}",
            hint="put the classifier in the folder as model.onnx",
        )
    return found[0]


def _config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JudgeError(
            f"--support-model {folder}: config.json cannot be read ({_short(exc)})",
            hint="fix or remove config.json (it only names the labels and the window)",
        ) from None
    return data if isinstance(data, dict) else {}


def _window(tokenizer: Any, config: dict[str, Any]) -> int:
    truncation = getattr(tokenizer, "truncation", None)
    if isinstance(truncation, dict) and isinstance(truncation.get("max_length"), int):
        return int(truncation["max_length"])
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 8:
        return (
            positions - 2 if config.get("model_type") in ("roberta", "xlm-roberta") else positions
        )
    return DEFAULT_WINDOW


def _label(config: dict[str, Any]) -> int | None:
    """The index of the supported label when config.json names one (None: the last)."""
    labels = config.get("id2label")
    if isinstance(labels, dict):
        for key, name in labels.items():
            folded = str(name).casefold()
            if any(w in folded for w in _OPPOSITE_LABELS) or not str(key).isdigit():
                continue
            if any(w in folded for w in _SUPPORTED_LABELS):
                return int(key)
    return None


def _probability(row: Any, label: int | None, name: str) -> float:
    values = [float(v) for v in list(row)]
    if not values or not all(math.isfinite(v) for v in values):
        raise JudgeError(f"{name} gave no finite logits", hint="check the exported model")
    if len(values) == 1:
        return 1 / (1 + math.exp(-values[0]))
    index = label if label is not None and label < len(values) else len(values) - 1
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    return exps[index] / sum(exps)


class CommandJudge:
    """A program that scores JSON lines (see the module docstring)."""

    def __init__(self, command: str) -> None:
        self.name = f"judge command {command!r}"
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise JudgeError(
                f"--support-judge {command!r}: {exc}", hint="quote the command as a shell would"
            ) from None
        if not self.argv:
            raise JudgeError("--support-judge is empty", hint="name a program that scores pairs")

    def fits(self, claim: str, evidence: str) -> bool:
        return True

    def scores(
        self, pairs: Sequence[tuple[str, str]], progress: Progress | None = None
    ) -> list[float]:
        if not pairs:
            return []
        # Its messages go to a file: a pipe nobody reads while its scores are read could fill.
        log = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the child below
        try:
            child = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                encoding="utf-8",
            )
        except OSError as exc:
            log.close()
            raise JudgeError(
                f"{self.name} cannot be started ({exc.strerror or exc})",
                hint="check the program's path and that it is executable",
            ) from None
        lines = [json.dumps({"claim": c, "evidence": e}, ensure_ascii=False) for c, e in pairs]
        writer = threading.Thread(target=_feed, args=(child, lines), daemon=True)
        with child, log:  # closes the pipes and waits, whatever happens
            writer.start()
            try:
                out = self._read(child, len(pairs), progress)
            except JudgeError:
                child.kill()
                raise
            finally:
                writer.join()
            code = child.wait()
            log.seek(0)
            errors = log.read().decode("utf-8", "replace")
        if code != 0:
            last = errors.strip().splitlines()[-1:] or [f"exit status {code}"]
            raise JudgeError(
                f"{self.name} failed: {last[0][:200]}",
                hint="run it by hand on one JSON line to see why",
            )
        if len(out) != len(pairs):
            raise JudgeError(
                f"{self.name} wrote {len(out)} score(s) for {len(pairs)} pair(s)",
                hint="write one score a line, one line per JSON line read, in order",
            )
        return out

    def _read(
        self, child: subprocess.Popen[str], total: int, progress: Progress | None
    ) -> list[float]:
        assert child.stdout is not None
        out: list[float] = []
        for line in child.stdout:
            if not line.strip():
                continue
            out.append(self._score(line, len(out) + 1))
            if progress is not None:
                progress(min(len(out), total), total)
        return out

    def _score(self, line: str, number: int) -> float:
        try:
            value = float(line.strip())
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise JudgeError(
                f"{self.name}: line {number} of its output is {line.strip()[:60]!r}, "
                "not a score from 0 to 1",
                hint="write one number from 0 to 1 a line",
            )
        return value


def _feed(child: subprocess.Popen[str], lines: list[str]) -> None:
    assert child.stdin is not None
    try:
        for line in lines:
            child.stdin.write(line + "\n")
        child.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the program stopped reading: its exit status says why


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:160] + ("\u2026" if len(text) > 160 else "")


def load_judge(model: str | None, command: str | None) -> Judge | None:
    """The judge the options name (None when none is named); both named is bad input."""
    if model and command:
        raise JudgeError(
            "--support-model and --support-judge both given",
            hint="name one judge: a model folder or a command",
        )
    if model:
        return ModelJudge(Path(model).expanduser())
    if command:
        return CommandJudge(command)
    return None
