"""Request building and batching, without a server."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from evald_client import (
    EvaldError,
    FieldViolation,
    InvalidArgumentError,
    NotImplementedByServerError,
    ServerError,
    UnavailableError,
)
from evald_client._exceptions import error_class, from_rpc_error
from evald_client._requests import Metric, batches, scores, text_instances, trajectory_instances
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

EXACT = Metric("exact_match_input")


def make(n: int, size: int = 10) -> list[m.ExactMatchInstance]:
    return text_instances(EXACT, ["p" * size] * n, [str(i) for i in range(n)])


@pytest.mark.parametrize(
    ("count", "max_batch", "sizes"),
    [(0, 5, []), (1, 5, [1]), (5, 5, [5]), (6, 5, [5, 1]), (12, 5, [5, 5, 2]), (3, 1, [1, 1, 1])],
)
def test_batches_by_count(count: int, max_batch: int, sizes: list[int]) -> None:
    instances = make(count)
    requests = list(
        batches(EXACT, {}, instances, location="l", max_batch=max_batch, max_bytes=1 << 20)
    )
    assert [len(r.exact_match_input.instances) for r in requests] == sizes
    # Order kept across batches, every request complete on its own.
    sent = [i for r in requests for i in r.exact_match_input.instances]
    assert sent == instances
    assert all(r.location == "l" and r.exact_match_input.HasField("metric_spec") for r in requests)


def test_batches_by_size() -> None:
    instances = make(10, size=30_000)  # ~30 kB each
    budget = 64 * 1024 + 100_000  # room for 3 instances after the envelope
    requests = list(batches(EXACT, {}, instances, location="l", max_batch=1000, max_bytes=budget))
    assert [len(r.exact_match_input.instances) for r in requests] == [3, 3, 3, 1]
    assert all(r.ByteSize() <= budget for r in requests)


def test_an_instance_over_the_limit_goes_alone() -> None:
    instances = make(2, size=200_000)
    requests = list(batches(EXACT, {}, instances, location="l", max_batch=10, max_bytes=100_000))
    assert [len(r.exact_match_input.instances) for r in requests] == [1, 1]


def test_spec_is_set() -> None:
    metric = Metric("rouge_input")
    instances = text_instances(metric, ["a"], ["b"])
    (request,) = batches(
        metric,
        {"rouge_type": "rouge2", "use_stemmer": True},
        instances,
        location="l",
        max_batch=5,
        max_bytes=1 << 20,
    )
    assert request.rouge_input.metric_spec == m.RougeSpec(rouge_type="rouge2", use_stemmer=True)


def test_text_instances_checks_lengths_and_types() -> None:
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        text_instances(EXACT, ["a", "b"], ["a"])
    with pytest.raises(TypeError, match="not a string"):
        text_instances(EXACT, "ab", "ab")
    with pytest.raises(TypeError, match="expected a string or a mapping"):
        text_instances(EXACT, [1], ["a"])  # type: ignore[list-item]


def test_mappings_are_sent_as_json() -> None:
    call = {"content": "", "tool_calls": [{"name": "f", "arguments": {"x": 1}}]}
    (instance,) = text_instances(Metric("tool_call_valid_input"), [call], ["{}"])
    assert json.loads(instance.prediction) == call


def test_trajectories() -> None:
    metric = Metric("trajectory_recall_input")
    (instance,) = trajectory_instances(metric, [[("a", {"q": 1}), ("b", "")]], [[("a", "{}")]])
    assert [c.tool_name for c in instance.predicted_trajectory.tool_calls] == ["a", "b"]
    assert json.loads(instance.predicted_trajectory.tool_calls[0].tool_input) == {"q": 1}
    assert instance.reference_trajectory.tool_calls[0].tool_input == "{}"
    single = Metric("trajectory_single_tool_use_input")
    (alone,) = trajectory_instances(single, [[("a", "")]], None)
    assert alone.predicted_trajectory.tool_calls[0].tool_name == "a"


def test_scores_read_the_expected_result() -> None:
    response = m.EvaluateInstancesResponse()
    response.exact_match_results.exact_match_metric_values.add(score=1.0)
    response.exact_match_results.exact_match_metric_values.add(score=0.0)
    assert scores(EXACT, response) == [1.0, 0.0]
    with pytest.raises(ValueError, match="bleu_results"):
        scores(Metric("bleu_input"), response)


class FakeRpcError(grpc.RpcError):
    def __init__(
        self, code: grpc.StatusCode, details: str, trailing: tuple[tuple[str, Any], ...] = ()
    ) -> None:
        self._code, self._details, self._trailing = code, details, trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Any:
        return self._trailing


def test_rpc_errors_become_the_tree() -> None:
    bad = error_details_pb2.BadRequest(
        field_violations=[error_details_pb2.BadRequest.FieldViolation(field="a.b", description="d")]
    )
    packed = any_pb2.Any()
    packed.Pack(bad)
    status = status_pb2.Status(code=3, message="a.b: d", details=[packed])
    error = from_rpc_error(
        FakeRpcError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "a.b: d",
            (("grpc-status-details-bin", status.SerializeToString()),),
        )
    )
    assert isinstance(error, InvalidArgumentError)
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.field_violations == [FieldViolation("a.b", "d")]
    assert str(error) == "INVALID_ARGUMENT: a.b: d"


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (grpc.StatusCode.UNIMPLEMENTED, NotImplementedByServerError),
        (grpc.StatusCode.UNAVAILABLE, UnavailableError),
        (grpc.StatusCode.INTERNAL, ServerError),
        (grpc.StatusCode.DATA_LOSS, ServerError),
        (grpc.StatusCode.OUT_OF_RANGE, InvalidArgumentError),
    ],
)
def test_error_classes(code: grpc.StatusCode, cls: type[EvaldError]) -> None:
    assert error_class(code) is cls
    error = from_rpc_error(FakeRpcError(code, "m"))
    assert type(error) is cls
    assert error.status.code == code.value[0]
    assert error.details == []
