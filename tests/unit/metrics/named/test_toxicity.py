"""``fmeval/toxicity`` against the reference packages on tiny seeded checkpoints built here:
Detoxify's own ``Detoxify.predict`` and the transformers text-classification pipeline read as
FMEval reads it. Nothing is downloaded."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.metrics.named.fmeval.toxicity import DETOXIFY_SCORES, DetoxifyKind, ToxigenKind
from google.protobuf import json_format

from tests.optional import Lazy, needs
from tests.support import MESSAGES, ServerThread, serving, stub

pytestmark = needs("torch", "transformers", "detoxify")
torch: Any = Lazy("torch")
transformers: Any = Lazy("transformers")
detoxify: Any = Lazy("detoxify")

DETOXIFY_CLASSES = [
    *DETOXIFY_SCORES,
    *("male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim"),
    *("black", "white", "psychiatric_or_mental_illness"),
]
"""The unbiased checkpoint's 16 outputs: FMEval's seven, then the identity classes."""
TEXTS = [
    "you are wonderful",
    "I will find you and hurt you",
    "",
    "a longer text " * 8,  # past the tiny encoder's 64 tokens: truncated
    "Ünïcødé 🙂 text",
]
MAX_TOKENS = 64
TOLERANCE = 1e-5


def byte_level_vocab() -> dict[str, int]:
    """A RoBERTa vocabulary of the 256 byte symbols alone (no merges): every byte a token."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    symbols = [chr(b) for b in printable]
    symbols += [chr(256 + n) for n in range(256 - len(printable))]
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for symbol in symbols:
        vocab[symbol] = len(vocab)
    vocab["<mask>"] = len(vocab)
    return vocab


def tiny_classifier(directory: Path, labels: int, seed: int) -> Any:
    """A seeded 2-layer RoBERTa classifier with its tokenizer, saved to ``directory``."""
    vocab = byte_level_vocab()
    tokenizer = transformers.RobertaTokenizer(vocab=vocab, merges=[], model_max_length=MAX_TOKENS)
    config = transformers.RobertaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=MAX_TOKENS + 2,
        num_labels=labels,
        initializer_range=0.5,  # large weights: scores spread over 0..1, not all near 0.5
    )
    torch.manual_seed(seed)
    model = transformers.RobertaForSequenceClassification(config).eval()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return model


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``unitary/unbiased-toxic-roberta`` with Detoxify's checkpoint file, ``detoxify-hf`` with
    the same weights as a transformers model only, and ``tomh/toxigen_roberta``."""
    root = tmp_path_factory.mktemp("models")
    unbiased = root / "unitary" / "unbiased-toxic-roberta"
    model = tiny_classifier(unbiased, len(DETOXIFY_CLASSES), seed=1)
    (unbiased / "model.safetensors").unlink()  # the checkpoint file alone carries the weights
    tiny_classifier(root / "detoxify-hf", len(DETOXIFY_CLASSES), seed=1)
    checkpoint = {
        "config": {
            "arch": {
                "args": {
                    # Detoxify always reads this base model's config: a local folder keeps the
                    # reference offline (the real checkpoint says roberta-base).
                    "model_type": str(unbiased),
                    "model_name": "RobertaForSequenceClassification",
                    "tokenizer_name": "RobertaTokenizer",
                    "num_classes": len(DETOXIFY_CLASSES),
                }
            },
            "dataset": {"args": {"classes": DETOXIFY_CLASSES}},
        },
        "state_dict": model.state_dict(),
    }
    torch.save(checkpoint, unbiased / "toxic_debiased-c7548aa0.ckpt")
    tiny_classifier(root / "tomh" / "toxigen_roberta", 2, seed=2)
    return root


def reference_detoxify(models_dir: Path, texts: list[str]) -> list[dict[str, float]]:
    folder = models_dir / "unitary" / "unbiased-toxic-roberta"
    reference = detoxify.Detoxify(
        checkpoint=str(folder / "toxic_debiased-c7548aa0.ckpt"), huggingface_config_path=folder
    )
    scores = reference.predict(texts)
    # predict squeezes a one-text batch to one number per class.
    columns = {n: s if isinstance(s, list) else [s] for n, s in scores.items()}
    return [{name: columns[name][i] for name in DETOXIFY_SCORES} for i in range(len(texts))]


def reference_toxigen(models_dir: Path, texts: list[str]) -> list[float]:
    pipe = transformers.pipeline(
        "text-classification", model=str(models_dir / "tomh" / "toxigen_roberta")
    )
    # FMEval's call, which truncates nothing: a text past the encoder fails there, and evald
    # scores it truncated.
    out = [pipe(t)[0] if len(t) < MAX_TOKENS - 2 else pipe(t, truncation=True)[0] for t in texts]
    return [x["score"] if x["label"] == "LABEL_1" else 1.0 - x["score"] for x in out]


def assert_scores(got: list[dict[str, float]], expected: list[dict[str, float]]) -> None:
    assert [list(g) for g in got] == [list(e) for e in expected]
    for g, e in zip(got, expected, strict=True):
        assert list(g.values()) == pytest.approx(list(e.values()), abs=TOLERANCE)


def test_detoxify_checkpoint_scores_as_detoxify(models_dir: Path) -> None:
    kind = DetoxifyKind()
    state = kind.load(models_dir / "unitary" / "unbiased-toxic-roberta", "cpu", {})
    expected = reference_detoxify(models_dir, TEXTS)
    assert_scores(kind.forward(state, TEXTS, {}), expected)
    # One at a time, as a lone call is batched: padding changes nothing.
    assert_scores([kind.forward(state, [t], {})[0] for t in TEXTS], expected)
    spread = [s["toxicity"] for s in expected]
    assert max(spread) - min(spread) > 0.05  # the texts are told apart


def test_detoxify_transformers_weights_score_as_the_checkpoint(models_dir: Path) -> None:
    kind = DetoxifyKind()
    state = kind.load(models_dir / "detoxify-hf", "cpu", {})
    assert_scores(kind.forward(state, TEXTS, {}), reference_detoxify(models_dir, TEXTS))


def test_toxigen_scores_as_fmeval_reads_the_pipeline(models_dir: Path) -> None:
    kind = ToxigenKind()
    state = kind.load(models_dir / "tomh" / "toxigen_roberta", "cpu", {})
    got = [s["toxicity"] for s in kind.forward(state, TEXTS, {})]
    expected = reference_toxigen(models_dir, TEXTS)
    assert got == pytest.approx(expected, abs=TOLERANCE)
    # Both of FMEval's branches are taken: a top label LABEL_1 and a top label LABEL_0.
    assert min(expected) < 0.5 < max(expected)


@pytest.fixture(scope="module")
def server(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with serving(data_dir=tmp_path_factory.mktemp("data"), models_dir=models_dir) as running:
        yield running


def evaluate(server: ServerThread, metrics: list[dict[str, Any]], text: str) -> Any:
    body = {
        "metrics": [
            {"predefined_metric_spec": {"metric_spec_name": "fmeval/toxicity", **m}}
            for m in metrics
        ],
        "instance": {"response": {"text": text}},
    }
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    with grpc.insecure_channel(server.address) as channel:
        return stub(channel).EvaluateInstances(request).metric_results


def f32(x: float) -> float:
    """``x`` as the wire's float carries it."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def test_server_returns_each_detoxify_score(server: ServerThread, models_dir: Path) -> None:
    text = TEXTS[1]
    metrics: list[dict[str, Any]] = [{}] + [
        {"metric_spec_parameters": {"score": name}} for name in DETOXIFY_SCORES
    ]
    results = evaluate(server, metrics, text)
    assert not any(r.HasField("error") for r in results)
    (expected,) = reference_detoxify(models_dir, [text])
    assert [r.score for r in results] == pytest.approx(
        [f32(expected["toxicity"])] + [f32(expected[n]) for n in DETOXIFY_SCORES], abs=TOLERANCE
    )
    explained = json.loads(results[0].explanation)
    assert list(explained) == list(DETOXIFY_SCORES)
    assert list(explained.values()) == pytest.approx(list(expected.values()), abs=TOLERANCE)


def test_server_scores_toxigen(server: ServerThread, models_dir: Path) -> None:
    params = [{"detector": "toxigen"}, {"detector": "toxigen", "score": "insult"}]
    results = evaluate(server, [{"metric_spec_parameters": p} for p in params], TEXTS[0])
    (expected,) = reference_toxigen(models_dir, [TEXTS[0]])
    assert results[0].score == pytest.approx(f32(expected), abs=TOLERANCE)
    assert json.loads(results[0].explanation) == {"toxicity": pytest.approx(expected, abs=1e-5)}
    assert results[1].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


def test_missing_model_is_a_failed_precondition_naming_the_path(
    server: ServerThread, models_dir: Path
) -> None:
    metrics = [{"metric_spec_parameters": {"model": "nobody/no-such-model"}}]
    (result,) = evaluate(server, metrics, "hello")
    assert result.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert "nobody/no-such-model" in result.error.message
    assert str(models_dir / "nobody" / "no-such-model") in result.error.message
