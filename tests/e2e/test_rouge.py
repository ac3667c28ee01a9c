"""rouge end to end over gRPC, both API versions: scores equal rouge-score's, errors are
INVALID_ARGUMENT with a ``google.rpc.BadRequest`` naming the field."""

from __future__ import annotations

import struct
from typing import Any
from unittest import mock

import grpc
import pytest
from evald.metrics.text.sentences import split_sentences
from google.rpc import error_details_pb2, status_pb2
from rouge_score import rouge_scorer

from tests.support import MESSAGES, stub

VERSIONS = ["v1beta1", "v1"]
LOCATION = "projects/p/locations/us-central1"
TYPES = ["rouge1", "rouge2", "rouge9", "rougeL", "rougeLsum"]

PAIRS = [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("a b c", "d e f"),  # 0.0, still set
    ("He was late. Dr. Smith left.", "Dr. Smith left. He was late."),
    ("running dogs", "run dog"),
    ("", "reference"),
]


def float32(x: float) -> float:
    value: float = struct.unpack("f", struct.pack("f", x))[0]
    return value


def expected(rouge_type: str, use_stemmer: bool, split_summaries: bool) -> list[float]:
    scorer = rouge_scorer.RougeScorer(
        [rouge_type], use_stemmer=use_stemmer, split_summaries=split_summaries
    )
    # rouge-score's own code, given the offline splitter instead of NLTK's downloadable data
    with mock.patch.object(rouge_scorer.nltk, "sent_tokenize", split_sentences):
        return [
            float32(scorer.score(target=r, prediction=p)[rouge_type].fmeasure) for p, r in PAIRS
        ]


def request(version: str, **spec: Any) -> Any:
    m = MESSAGES[version]
    return m.EvaluateInstancesRequest(
        location=LOCATION,
        rouge_input=m.RougeInput(
            metric_spec=m.RougeSpec(**spec),
            instances=[m.RougeInstance(prediction=p, reference=r) for p, r in PAIRS],
        ),
    )


def scores(channel: grpc.Channel, version: str, **spec: Any) -> list[float]:
    response = stub(channel, version).EvaluateInstances(request(version, **spec), timeout=30)
    assert response.WhichOneof("evaluation_results") == "rouge_results"
    values = response.rouge_results.rouge_metric_values
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("rouge_type", TYPES)
@pytest.mark.parametrize(("use_stemmer", "split_summaries"), [(False, False), (True, True)])
def test_scores_equal_rouge_score(
    channel: grpc.Channel, version: str, rouge_type: str, use_stemmer: bool, split_summaries: bool
) -> None:
    got = scores(
        channel,
        version,
        rouge_type=rouge_type,
        use_stemmer=use_stemmer,
        split_summaries=split_summaries,
    )
    assert got == pytest.approx(
        expected(rouge_type, use_stemmer, split_summaries), rel=1e-6, abs=1e-7
    )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("sent", "canonical"), [("rougel", "rougeL"), ("ROUGELSUM", "rougeLsum"), ("", "rougeL")]
)
def test_letter_case_and_empty_default(
    channel: grpc.Channel, version: str, sent: str, canonical: str
) -> None:
    got = scores(channel, version, rouge_type=sent)
    assert got == pytest.approx(expected(canonical, False, False), rel=1e-6, abs=1e-7)


def bad_request_fields(error: Any) -> list[str]:
    """Field paths of the BadRequest detail in the call's ``grpc-status-details-bin`` trailer."""
    trailers = dict(error.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    fields = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
    return fields


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("bad", ["rouge0", "rougeN", "rouge-l"])
def test_unknown_rouge_type_is_invalid_argument(
    channel: grpc.Channel, version: str, bad: str
) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel, version).EvaluateInstances(request(version, rouge_type=bad), timeout=30)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert bad_request_fields(error) == ["rouge_input.metric_spec.rouge_type"]
    assert "rougeLsum" in error.details()


@pytest.mark.parametrize("version", VERSIONS)
def test_missing_reference_names_the_instance(channel: grpc.Channel, version: str) -> None:
    m = MESSAGES[version]
    req = m.EvaluateInstancesRequest(
        location=LOCATION,
        rouge_input=m.RougeInput(
            metric_spec=m.RougeSpec(rouge_type="rouge1"),
            instances=[m.RougeInstance(prediction="a", reference="a"), m.RougeInstance()],
        ),
    )
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel, version).EvaluateInstances(req, timeout=30)
    assert bad_request_fields(raised.value) == [
        "rouge_input.instances[1].prediction",
        "rouge_input.instances[1].reference",
    ]
