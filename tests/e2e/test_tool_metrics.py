"""Tool-call and trajectory metrics end to end over gRPC (tool-call metrics on v1 and v1beta1,
trajectory metrics on v1beta1 only: v1 has no trajectory inputs). The golden files under
tests/golden/tool_*/ and tests/golden/trajectory_*/ are replayed by tests/e2e/test_golden.py."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.support import MESSAGES, stub

LOCATION = "projects/p/locations/us-central1"
WEATHER = json.dumps(
    {"content": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
)


def bad_request(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The BadRequest field violations carried in ``grpc-status-details-bin``."""
    trailers: dict[str, Any] = dict(error.trailing_metadata() or ())  # type: ignore[arg-type]
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    violations = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            violations += [(v.field, v.description) for v in bad.field_violations]
    return violations


def call(channel: grpc.Channel, version: str, request: Any) -> Any:
    return stub(channel, version).EvaluateInstances(request)


TOOL_METRICS = [
    # (metric, spec kwargs, expected scores of PAIRS)
    ("tool_call_valid", {}, [1.0, 0.0, 1.0]),
    ("tool_name_match", {}, [1.0, 0.0, 1.0]),
    ("tool_parameter_key_match", {}, [1.0, 0.0, 1.0]),
    ("tool_parameter_kv_match", {}, [1.0, 0.0, 1.0]),
    ("tool_parameter_kv_match", {"use_strict_string_match": True}, [1.0, 0.0, 0.0]),
]
PAIRS = [
    (WEATHER, WEATHER),
    ("It is sunny in Paris.", WEATHER),
    (WEATHER.replace("Paris", "paris"), WEATHER),
]
KINDS = {
    "tool_call_valid": "ToolCallValid",
    "tool_name_match": "ToolNameMatch",
    "tool_parameter_key_match": "ToolParameterKeyMatch",
    "tool_parameter_kv_match": "ToolParameterKVMatch",
}


def tool_request(m: Any, metric: str, pairs: list[tuple[str, str]], **spec: Any) -> Any:
    kind = KINDS[metric]
    instance = getattr(m, f"{kind}Instance")
    metric_input = getattr(m, f"{kind}Input")(
        metric_spec=getattr(m, f"{kind}Spec")(**spec),
        instances=[instance(prediction=p, reference=r) for p, r in pairs],
    )
    return m.EvaluateInstancesRequest(location=LOCATION, **{f"{metric}_input": metric_input})


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize(("metric", "spec", "expected"), TOOL_METRICS)
def test_tool_metrics(
    channel: grpc.Channel, version: str, metric: str, spec: dict[str, Any], expected: list[float]
) -> None:
    response = call(channel, version, tool_request(MESSAGES[version], metric, PAIRS, **spec))
    assert response.WhichOneof("evaluation_results") == f"{metric}_results"
    values = getattr(getattr(response, f"{metric}_results"), f"{metric}_metric_values")
    assert [v.score for v in values] == expected
    assert all(v.HasField("score") for v in values)


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize("metric", ["tool_name_match", "tool_parameter_kv_match"])
def test_malformed_references_are_all_named(
    channel: grpc.Channel, version: str, metric: str
) -> None:
    pairs = [(WEATHER, WEATHER), (WEATHER, ""), (WEATHER, '{"tool_calls": [{"name": 1}]}')]
    with pytest.raises(grpc.RpcError) as caught:
        call(channel, version, tool_request(MESSAGES[version], metric, pairs))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations = bad_request(caught.value)
    assert [field for field, _ in violations] == [
        f"{metric}_input.instances[1].reference",
        f"{metric}_input.instances[2].reference",
    ]
    assert "is empty" in violations[0][1]
    assert "tool_calls[0].name must be a non-empty string" in violations[1][1]


TRAJECTORY_METRICS = [
    # (metric, expected: identical, swapped, prediction with an extra call, prediction empty)
    ("trajectory_exact_match", [1.0, 0.0, 0.0, 0.0]),
    ("trajectory_in_order_match", [1.0, 0.0, 1.0, 0.0]),
    ("trajectory_any_order_match", [1.0, 1.0, 1.0, 0.0]),
    ("trajectory_precision", [1.0, 1.0, 2 / 3, 0.0]),
    ("trajectory_recall", [1.0, 1.0, 1.0, 0.0]),
]


def trajectory(m: Any, *names: str) -> Any:
    return m.Trajectory(
        tool_calls=[m.ToolCall(tool_name=n, tool_input=json.dumps({"n": n})) for n in names]
    )


@pytest.mark.parametrize(("metric", "expected"), TRAJECTORY_METRICS)
def test_trajectory_metrics(channel: grpc.Channel, metric: str, expected: list[float]) -> None:
    m = MESSAGES["v1beta1"]
    kind = "".join(word.title() for word in metric.split("_"))
    instance = getattr(m, f"{kind}Instance")
    rows = [("a", "b"), ("b", "a"), ("a", "x", "b"), ()]
    metric_input = getattr(m, f"{kind}Input")(
        metric_spec=getattr(m, f"{kind}Spec")(),
        instances=[
            instance(
                predicted_trajectory=trajectory(m, *row),
                reference_trajectory=trajectory(m, "a", "b"),
            )
            for row in rows
        ],
    )
    request = m.EvaluateInstancesRequest(location=LOCATION, **{f"{metric}_input": metric_input})
    response = call(channel, "v1beta1", request)
    values = getattr(getattr(response, f"{metric}_results"), f"{metric}_metric_values")
    assert [v.score for v in values] == pytest.approx(expected, rel=1e-6, abs=1e-7)
    assert all(v.HasField("score") for v in values)


def test_single_tool_use(channel: grpc.Channel) -> None:
    m = MESSAGES["v1beta1"]
    request = m.EvaluateInstancesRequest(
        location=LOCATION,
        trajectory_single_tool_use_input=m.TrajectorySingleToolUseInput(
            metric_spec=m.TrajectorySingleToolUseSpec(tool_name="b"),
            instances=[
                m.TrajectorySingleToolUseInstance(predicted_trajectory=trajectory(m, *row))
                for row in [("a", "b"), ("a",), ()]
            ],
        ),
    )
    values = call(channel, "v1beta1", request).trajectory_single_tool_use_results
    assert [v.score for v in values.trajectory_single_tool_use_metric_values] == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("tool_name", [None, ""])
def test_single_tool_use_without_tool_name(channel: grpc.Channel, tool_name: str | None) -> None:
    m = MESSAGES["v1beta1"]
    spec = m.TrajectorySingleToolUseSpec()
    if tool_name is not None:
        spec.tool_name = tool_name
    request = m.EvaluateInstancesRequest(
        location=LOCATION,
        trajectory_single_tool_use_input=m.TrajectorySingleToolUseInput(
            metric_spec=spec,
            instances=[m.TrajectorySingleToolUseInstance(predicted_trajectory=trajectory(m, "a"))],
        ),
    )
    with pytest.raises(grpc.RpcError) as caught:
        call(channel, "v1beta1", request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    ((field, description),) = bad_request(caught.value)
    assert field == "trajectory_single_tool_use_input.metric_spec.tool_name"
    assert "tool_name is required" in description
