"""bleu end to end over gRPC, both API versions: scores equal sacrebleu's, in instance order."""

from __future__ import annotations

import struct

import grpc
import pytest
import sacrebleu

from tests.support import MESSAGES, stub

VERSIONS = ["v1beta1", "v1"]
LOCATION = "projects/p/locations/us-central1"

PAIRS = [
    ("the cat sat on the mat", "the cat sat on the mat"),
    ("a b c d", "e f g h"),  # 0.0, still set
    ("the cat sat on the mat", "the cat sat on a mat"),
    ("hello world", "hello world"),  # effective order decides: 0.0 or 1.0
    ("", "reference"),
    ("東京は日本の首都です。", "日本の首都は東京です。"),
]


def float32(x: float) -> float:
    value: float = struct.unpack("f", struct.pack("f", x))[0]
    return value


def expected(effective_order: bool) -> list[float]:
    return [
        float32(sacrebleu.sentence_bleu(p, [r], use_effective_order=effective_order).score / 100)
        for p, r in PAIRS
    ]


def call(channel: grpc.Channel, version: str, spec: dict[str, bool]) -> list[float]:
    m = MESSAGES[version]
    request = m.EvaluateInstancesRequest(
        location=LOCATION,
        bleu_input=m.BleuInput(
            metric_spec=m.BleuSpec(**spec),
            instances=[m.BleuInstance(prediction=p, reference=r) for p, r in PAIRS],
        ),
    )
    response = stub(channel, version).EvaluateInstances(request, timeout=30)
    assert response.WhichOneof("evaluation_results") == "bleu_results"
    values = response.bleu_results.bleu_metric_values
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("effective_order", [False, True])
def test_scores_equal_sacrebleu(channel: grpc.Channel, version: str, effective_order: bool) -> None:
    got = call(channel, version, {"use_effective_order": effective_order})
    assert got == pytest.approx(expected(effective_order), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("version", VERSIONS)
def test_unset_spec_is_plain_bleu(channel: grpc.Channel, version: str) -> None:
    got = call(channel, version, {})
    assert got == pytest.approx(expected(False), rel=1e-6, abs=1e-7)
    assert got[3] == 0.0  # two tokens, no 3- and 4-grams


@pytest.mark.parametrize("version", VERSIONS)
def test_missing_prediction_is_invalid_argument(channel: grpc.Channel, version: str) -> None:
    m = MESSAGES[version]
    request = m.EvaluateInstancesRequest(
        location=LOCATION,
        bleu_input=m.BleuInput(instances=[m.BleuInstance(reference="x")]),
    )
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel, version).EvaluateInstances(request, timeout=30)
    error: grpc.Call = raised.value  # type: ignore[assignment]
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "bleu_input.instances[0].prediction" in (error.details() or "")
