"""Building EvaluateInstances requests from plain Python values, in size-bounded batches.

Shared by the sync and async clients: they differ only in how a request is sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages

ToolInput = str | Mapping[str, Any]
"""A tool call's input: a JSON string, or a mapping that is sent as JSON."""
ToolStep = tuple[str, ToolInput]
"""One step of a trajectory: ``(tool_name, tool_input)``."""
Trajectory = Sequence[ToolStep]

DEFAULT_MAX_BATCH = 1000
ENVELOPE_BYTES = 64 * 1024
"""Room kept under the message size limit for the spec, location and framing."""


@dataclass(frozen=True)
class Metric:
    """One computed metric: its ``metric_inputs`` member and what its instances hold."""

    input_field: str

    @property
    def result_field(self) -> str:
        """The ``evaluation_results`` member the server fills for this metric."""
        return self.input_field.removesuffix("_input") + "_results"

    def input_message(self, spec: Mapping[str, Any]) -> Any:
        """The ``<metric>_input`` message with ``metric_spec`` set from ``spec``."""
        field: Any = messages.EvaluateInstancesRequest.DESCRIPTOR.fields_by_name[self.input_field]
        input_class = getattr(messages, field.message_type.name)
        spec_class = getattr(
            messages, field.message_type.fields_by_name["metric_spec"].message_type.name
        )
        return input_class(metric_spec=spec_class(**spec))

    def instance_class(self) -> Any:
        """The generated class of this metric's instances."""
        field: Any = messages.EvaluateInstancesRequest.DESCRIPTOR.fields_by_name[self.input_field]
        return getattr(messages, field.message_type.fields_by_name["instances"].message_type.name)


def text_instances(
    metric: Metric, predictions: Sequence[ToolInput], references: Sequence[ToolInput]
) -> list[Any]:
    """Instances with ``prediction`` and ``reference`` strings (mappings are sent as JSON)."""
    if isinstance(predictions, str) or isinstance(references, str):
        raise TypeError("predictions and references must be sequences of strings, not a string")
    if len(predictions) != len(references):
        raise ValueError(
            f"got {len(predictions)} predictions but {len(references)} references; "
            "they are scored pairwise"
        )
    make = metric.instance_class()
    return [
        make(prediction=_text(p), reference=_text(r))
        for p, r in zip(predictions, references, strict=True)
    ]


def trajectory_instances(
    metric: Metric, predicted: Sequence[Trajectory], reference: Sequence[Trajectory] | None
) -> list[Any]:
    """Instances with ``predicted_trajectory`` (and ``reference_trajectory`` when given)."""
    make = metric.instance_class()
    if reference is None:
        return [make(predicted_trajectory=trajectory(p)) for p in predicted]
    if len(predicted) != len(reference):
        raise ValueError(
            f"got {len(predicted)} predicted but {len(reference)} reference trajectories"
        )
    return [
        make(predicted_trajectory=trajectory(p), reference_trajectory=trajectory(r))
        for p, r in zip(predicted, reference, strict=True)
    ]


def trajectory(steps: Trajectory) -> Any:
    """A ``Trajectory`` message from ``(tool_name, tool_input)`` pairs."""
    return messages.Trajectory(
        tool_calls=[messages.ToolCall(tool_name=name, tool_input=_text(arg)) for name, arg in steps]
    )


def batches(
    metric: Metric,
    spec: Mapping[str, Any],
    instances: Sequence[Any],
    *,
    location: str,
    max_batch: int,
    max_bytes: int,
) -> Iterator[Any]:
    """Requests of at most ``max_batch`` instances and about ``max_bytes`` each, in order."""
    budget = max(1, max_bytes - ENVELOPE_BYTES)
    start = 0
    while start < len(instances):
        end, size = start, 0
        while end < len(instances) and end - start < max_batch:
            # Each repeated element costs its size plus a tag and a length prefix (<= 6 bytes).
            cost = instances[end].ByteSize() + 6
            if end > start and size + cost > budget:
                break
            size += cost
            end += 1
        request = messages.EvaluateInstancesRequest(location=location)
        metric_input = getattr(request, metric.input_field)
        metric_input.CopyFrom(metric.input_message(spec))
        metric_input.instances.extend(instances[start:end])
        yield request
        start = end


def scores(metric: Metric, response: Any) -> list[float]:
    """The per-instance scores of a response, in instance order."""
    which = response.WhichOneof("evaluation_results")
    if which != metric.result_field:
        raise ValueError(f"expected {metric.result_field} in the response, got {which}")
    result = getattr(response, which)
    (values_field,) = result.DESCRIPTOR.fields
    return [float(value.score) for value in getattr(result, values_field.name)]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return json.dumps(value)
    raise TypeError(f"expected a string or a mapping, got {type(value).__name__}")
