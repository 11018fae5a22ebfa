"""A tiny judge model built in the test, since CI cannot download model weights: a word-level
tokenizer (tokenizers) and an ONNX graph (onnx) whose supported-label logit is the share of
the claim's words found in the evidence, so every score the pipeline gives is known ahead:
``sigmoid(8 * (share - 0.5))`` (0.98 for a claim all of whose words are in the evidence,
0.02 for one with none). It takes ``token_type_ids``, as BERT-style classifiers do, to tell
the evidence (segment A) from the claim (segment B)."""

from __future__ import annotations

import json
import math
from pathlib import Path

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
STEEPNESS = 8.0


def expected_score(share: float) -> float:
    return 1 / (1 + math.exp(-STEEPNESS * (share - 0.5)))


def build(folder: Path, words: list[str], *, window: int = 512) -> Path:
    """Write model.onnx, tokenizer.json and config.json for ``words`` into ``folder``."""
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {w: i for i, w in enumerate([*SPECIALS, *sorted(set(words))])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.enable_truncation(window)
    tokenizer.save(str(folder / "tokenizer.json"))

    size = len(vocab)
    words_only = [0.0] * len(SPECIALS) + [1.0] * (size - len(SPECIALS))
    nodes = [
        helper.make_node("OneHot", ["input_ids", "depth", "onoff"], ["hot"], axis=-1),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["typef"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["maskf", "typef"], ["in_b"]),
        helper.make_node("Sub", ["maskf", "in_b"], ["in_a"]),
        helper.make_node("Unsqueeze", ["in_a", "last"], ["in_a3"]),
        helper.make_node("Unsqueeze", ["in_b", "last"], ["in_b3"]),
        helper.make_node("Mul", ["hot", "in_a3"], ["hot_a"]),
        helper.make_node("Mul", ["hot", "in_b3"], ["hot_b"]),
        helper.make_node("ReduceSum", ["hot_a", "seq"], ["count_a"], keepdims=0),
        helper.make_node("ReduceSum", ["hot_b", "seq"], ["count_b0"], keepdims=0),
        helper.make_node("Mul", ["count_b0", "words_only"], ["count_b"]),
        helper.make_node("Min", ["count_a", "count_b"], ["shared"]),
        helper.make_node("ReduceSum", ["shared", "last"], ["shared_n"], keepdims=1),
        helper.make_node("ReduceSum", ["count_b", "last"], ["claim_n0"], keepdims=1),
        helper.make_node("Max", ["claim_n0", "one"], ["claim_n"]),
        helper.make_node("Div", ["shared_n", "claim_n"], ["share"]),
        helper.make_node("Sub", ["share", "half"], ["centred"]),
        helper.make_node("Mul", ["centred", "steep"], ["logit"]),
        helper.make_node("Sub", ["logit", "logit"], ["zero"]),
        helper.make_node("Concat", ["zero", "logit"], ["logits"], axis=1),
    ]
    const = helper.make_tensor
    initializers = [
        const("depth", TensorProto.INT64, [], [size]),
        const("onoff", TensorProto.FLOAT, [2], [0.0, 1.0]),
        const("last", TensorProto.INT64, [1], [-1]),
        const("seq", TensorProto.INT64, [1], [1]),
        const("words_only", TensorProto.FLOAT, [size], words_only),
        const("one", TensorProto.FLOAT, [], [1.0]),
        const("half", TensorProto.FLOAT, [], [0.5]),
        const("steep", TensorProto.FLOAT, [], [STEEPNESS]),
    ]
    ints = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 2])
    graph = helper.make_graph(nodes, "overlap_judge", ints, [out], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    config = {"id2label": {"0": "unsupported", "1": "supported"}, "model_type": "bert"}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder
