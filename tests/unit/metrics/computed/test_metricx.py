"""metricx_input: the published MetricX-24 formula checked against transformers' own mT5 forward
pass on a tiny random model, and the metric's answers: versions, batching, missing models,
through a server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.api import messages as m
from evald.errors import FailedPrecondition, InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.computed.metricx import TOKENIZER, Metricx, MetricxKind
from evald.models.inline import InlineModels
from google.protobuf import json_format

from tests.optional import needs
from tests.support import CALL, serving, stub

pytestmark = needs("torch", "transformers", "safetensors", "sentencepiece")

MODEL = "google/metricx-24-hybrid-large-v2p6"
WORDS = [
    "source",
    "candidate",
    "reference",
    ":",
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "le",
    "chat",
    "est",
    "sur",
    "tapis",
]
TOLERANCE = 1e-5
RELATIVE = 2e-6
"""Scores reach 25 in float32 (about 7 significant digits): batches pad, so their sums differ
in the last digits."""
SCALE = 30.0
"""Scales the score's output row so scores spread over and beyond 0..25 (clipping shows)."""

# (version, source, prediction, reference, the model's input text as the published script
# builds it)
INSTANCES = [
    ("METRICX_24_SRC_REF", "the cat", "le chat", "le chat", "source: the cat candidate: le chat "
     "reference: le chat"),
    ("METRICX_24_REF", "ignored", "le chat est", "le chat", "source:  candidate: le chat est "
     "reference: le chat"),
    ("METRICX_24_SRC", "the cat sat", "le chat", "ignored", "source: the cat sat candidate: "
     "le chat"),
    ("METRICX_24_SRC_REF", "the cat sat on the mat", "le chat est sur le tapis", "le tapis",
     "source: the cat sat on the mat candidate: le chat est sur le tapis reference: le tapis"),
    ("METRICX_24_SRC_REF", "", "", "", "source:  candidate:  reference: "),
    ("METRICX_24_REF", "", "tapis tapis", "le chat sur le tapis",
     "source:  candidate: tapis tapis reference: le chat sur le tapis"),
]  # fmt: skip


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random mT5 saved as MetricX-24, and a tiny mT5 tokenizer where mT5's is found."""
    # Imported here, not at the top: torch and transformers take ~4 s to import, which every
    # test process collecting this module would pay, whether it runs these tests or not.
    import torch
    from safetensors import safe_open
    from transformers import MT5Config, MT5ForConditionalGeneration, T5Tokenizer

    root = tmp_path_factory.mktemp("models")
    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    vocab += [(f"\u2581{w}", -2.0 - i / 10) for i, w in enumerate(WORDS)]
    vocab += [(c, -8.0) for c in "abcdefghijklmnopqrstuvwxyz:"]
    tokenizer = T5Tokenizer(vocab=vocab, extra_ids=100)
    tokenizer.save_pretrained(root / TOKENIZER)
    config = MT5Config(
        vocab_size=len(tokenizer),
        d_model=8,
        d_kv=4,
        d_ff=16,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    model = MT5ForConditionalGeneration(config)
    # MetricX's output layer is its own, not the input embeddings (mT5 configs say
    # tie_word_embeddings: false), so the logits are not rescaled: untie it here too.
    head = torch.randn(model.lm_head.weight.shape, generator=torch.Generator().manual_seed(1))
    head[tokenizer.convert_tokens_to_ids("<extra_id_10>")] *= SCALE
    model.lm_head.weight = torch.nn.Parameter(head)
    model.save_pretrained(root / MODEL)
    saved = json.loads((root / MODEL / "config.json").read_text())
    saved["tie_word_embeddings"] = False
    (root / MODEL / "config.json").write_text(json.dumps(saved))
    with safe_open(root / MODEL / "model.safetensors", "pt") as weights:
        assert "lm_head.weight" in weights.keys()  # noqa: SIM118
    return root


def reference_score(models_dir: Path, text: str) -> float:
    """MT5ForRegression's score: the full encoder-decoder forward pass from decoder token 0,
    the logit of <extra_id_10> at position 0, clipped to [0, 25]; the input without </s>."""
    import torch  # see models_dir
    from transformers import MT5ForConditionalGeneration, T5Tokenizer

    tokenizer = T5Tokenizer.from_pretrained(models_dir / TOKENIZER)
    model: Any = MT5ForConditionalGeneration.from_pretrained(models_dir / MODEL)
    model.eval()
    ids = tokenizer(text)["input_ids"]
    assert ids[-1] == tokenizer.eos_token_id
    ids = torch.tensor([ids[:-1]])
    with torch.no_grad():
        logits = model(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            decoder_input_ids=torch.tensor([[0]]),
        ).logits
    return float(logits[0, 0, tokenizer.convert_tokens_to_ids("<extra_id_10>")].clamp(0, 25))


@pytest.fixture(scope="module")
def expected(models_dir: Path) -> list[float]:
    scores = [reference_score(models_dir, case[-1]) for case in INSTANCES]
    assert any(0 < s < 25 for s in scores), scores  # some scores unclipped
    assert 25.0 in scores, scores  # and some clipped
    return scores


def call_with(models_dir: Path) -> Any:
    return dataclasses.replace(
        CALL, services=dataclasses.replace(CALL.services, models=InlineModels(models_dir))
    )


def metricx_input(version: Any, source: str, prediction: str, reference: str) -> Any:
    return m.MetricxInput(
        metric_spec=m.MetricxSpec(version=version),
        instance=m.MetricxInstance(source=source, prediction=prediction, reference=reference),
    )


def test_served_by_the_catalog() -> None:
    assert isinstance(builtin().inputs["metricx_input"], Metricx)


def test_kind_batches_like_single_items(models_dir: Path, expected: list[float]) -> None:
    kind = MetricxKind()
    state = kind.load(models_dir / MODEL, "cpu", {"tokenizer": str(models_dir / TOKENIZER)})
    texts = [case[-1] for case in INSTANCES]
    assert kind.forward(state, texts, {}) == pytest.approx(expected, rel=RELATIVE, abs=TOLERANCE)
    alone = [kind.forward(state, [text], {})[0] for text in texts]
    assert alone == pytest.approx(expected, rel=RELATIVE, abs=TOLERANCE)


def test_metric_formats_each_version(models_dir: Path, expected: list[float]) -> None:
    call = call_with(models_dir)

    async def scores() -> list[float]:
        results = await asyncio.gather(
            *(
                Metricx().evaluate_input(metricx_input(*case[:4]), "metricx_input", call)
                for case in INSTANCES
            )
        )
        return [result.score for result in results]  # type: ignore[attr-defined]

    assert asyncio.run(scores()) == pytest.approx(expected, rel=RELATIVE, abs=TOLERANCE)


def test_unset_version_is_the_hybrid(models_dir: Path, expected: list[float]) -> None:
    request = metricx_input(0, *INSTANCES[0][1:4])
    request.metric_spec.ClearField("version")
    result: Any = asyncio.run(
        Metricx().evaluate_input(request, "metricx_input", call_with(models_dir))
    )
    assert result.score == pytest.approx(expected[0], rel=RELATIVE, abs=TOLERANCE)


def test_unknown_version_is_invalid(models_dir: Path) -> None:
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(
            Metricx().evaluate_input(metricx_input(9, "a", "b", "c"), "metricx_input", CALL)
        )
    assert raised.value.violations[0].field == "metricx_input.metric_spec.version"


@pytest.mark.parametrize(
    ("version", "missing"),
    [("METRICX_24_REF", "reference"), ("METRICX_24_SRC", "source")],
)
def test_each_version_requires_its_fields(version: str, missing: str) -> None:
    request = metricx_input(version, "s", "p", "r")
    request.instance.ClearField(missing)
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(Metricx().evaluate_input(request, "metricx_input", CALL))
    assert raised.value.violations[0].field == f"metricx_input.instance.{missing}"


def test_missing_model_names_it_and_where(tmp_path: Path) -> None:
    request = metricx_input("METRICX_24_SRC", "s", "p", "")
    with pytest.raises(FailedPrecondition) as raised:
        asyncio.run(Metricx().evaluate_input(request, "metricx_input", call_with(tmp_path)))
    assert MODEL in raised.value.message
    assert str(tmp_path) in raised.value.message


def test_missing_tokenizer_names_it(models_dir: Path, tmp_path: Path) -> None:
    (tmp_path / MODEL).parent.mkdir(parents=True)
    (tmp_path / MODEL).symlink_to(models_dir / MODEL)
    request = metricx_input("METRICX_24_SRC", "s", "p", "")
    with pytest.raises(FailedPrecondition) as raised:
        asyncio.run(Metricx().evaluate_input(request, "metricx_input", call_with(tmp_path)))
    assert TOKENIZER in raised.value.message


@pytest.fixture(scope="module")
def channel(models_dir: Path) -> Iterator[grpc.Channel]:
    """One server for the module: its model worker loads the tiny MetricX once."""
    with serving(models_dir=models_dir) as server, grpc.insecure_channel(server.address) as ch:
        yield ch


def test_through_a_server(channel: grpc.Channel, expected: list[float]) -> None:
    reply = stub(channel).EvaluateInstances(
        m.EvaluateInstancesRequest(
            location="projects/p/locations/us-central1",
            metricx_input=metricx_input(*INSTANCES[0][:4]),
        ),
        timeout=60,
    )
    assert reply.metricx_result.score == pytest.approx(expected[0], rel=RELATIVE, abs=TOLERANCE)


def test_the_named_metric_scores_as_the_input_does(
    channel: grpc.Channel, expected: list[float]
) -> None:
    """``metricx`` in the Metric API: the response, the reference and ``other_data.source`` of
    the instance; the same model and score as ``metricx_input``."""
    version, source, prediction, reference = INSTANCES[0][:4]
    request = json_format.ParseDict(
        {
            "location": "projects/p/locations/us-central1",
            "metrics": [{"predefined_metric_spec": {
                "metric_spec_name": "metricx", "metric_spec_parameters": {"version": version}}}],
            "instance": {
                "response": {"text": prediction},
                "reference": {"text": reference},
                "other_data": {"map_instance": {"source": {"text": source}}},
            },
        },
        m.EvaluateInstancesRequest(),
    )  # fmt: skip
    reply = stub(channel).EvaluateInstances(request, timeout=60)
    (result,) = reply.metric_results
    assert result.error.code == 0, result.error
    assert result.score == pytest.approx(expected[0], rel=RELATIVE, abs=TOLERANCE)
