"""Trajectory metrics: exact / in-order / any-order match, precision, recall, single tool use.

A trajectory is a list of ``ToolCall{tool_name, tool_input}``. Two calls match when their names
are equal (exactly) and their inputs are equal: as JSON values when ``tool_input`` is valid JSON
(key order, spacing and ``1`` vs ``1.0`` do not matter, strings must be identical), otherwise as
identical text. A missing or blank ``tool_input`` means ``{}``. Calls are matched as multisets
(a duplicated call must be matched twice). A missing trajectory is an empty one, because the
preview SDK omits empty trajectories. Full rules: docs/metrics/computed.md, "Tool-call and
trajectory rules".
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from evald.errors import FieldViolation, InvalidArgument
from evald.metrics.computed.base import ComputedMetric
from evald.metrics.tool_calls.json_values import JsonError, canonical, canonical_text

CallKey = tuple[str, Hashable]
"""A tool call reduced to what matching compares: its name and its canonical input."""

_NO_INPUT = canonical({}, strict=True)


def call_key(call: Any) -> CallKey:
    """The match key of one ``ToolCall`` message."""
    text = call.tool_input
    if not text.strip():
        return (call.tool_name, _NO_INPUT)
    try:
        return (call.tool_name, canonical_text(text, strict=True))
    except JsonError:
        return (call.tool_name, ("raw", text))


def trajectory_keys(instance: Any, field: str) -> list[CallKey]:
    """The match keys of trajectory ``field`` of ``instance``, in order (missing = empty)."""
    if not instance.HasField(field):
        return []
    return [call_key(call) for call in getattr(instance, field).tool_calls]


def reference_violations(instance: Any, path: str) -> list[FieldViolation]:
    """What is wrong with the reference trajectory of the instance at ``path`` (empty if fine)."""
    return [
        FieldViolation(
            f"{path}.reference_trajectory.tool_calls[{j}].tool_name",
            "reference tool call needs a non-empty tool_name",
        )
        for j, call in enumerate(instance.reference_trajectory.tool_calls)
        if not call.tool_name.strip()
    ]


def matched(predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> int:
    """How many calls the two trajectories share, counted as multisets."""
    return sum((Counter(predicted) & Counter(reference)).values())


def ratio(hits: int, total: int, other_total: int) -> float:
    """``hits / total``; with ``total`` 0 it is 1 if the other side is empty too, else 0."""
    if total == 0:
        return 1.0 if other_total == 0 else 0.0
    return hits / total


class TrajectoryComparison(ComputedMetric[None]):
    """A metric comparing the predicted trajectory with the reference trajectory."""

    required = ()  # a missing trajectory is an empty one (the preview SDK omits empty ones)

    @abstractmethod
    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        """Score the predicted call keys against the reference call keys."""

    def options(self, spec: Any, path: str) -> None:
        return None

    def score(self, instance: Any, options: None, path: str) -> float:
        violations = reference_violations(instance, path)
        if violations:
            raise InvalidArgument.of(violations)
        return self.compare(
            trajectory_keys(instance, "predicted_trajectory"),
            trajectory_keys(instance, "reference_trajectory"),
        )

    def score_batch(self, instances: Sequence[Any], options: None, path: str) -> list[float]:
        # Every reference is checked before any scoring, so one error lists all bad references.
        violations = [
            v
            for i, instance in enumerate(instances)
            for v in reference_violations(instance, f"{path}[{i}]")
        ]
        if violations:
            raise InvalidArgument.of(violations)
        return [
            self.score(instance, options, f"{path}[{i}]") for i, instance in enumerate(instances)
        ]


class TrajectoryExactMatch(TrajectoryComparison):
    """1 when both trajectories hold the same calls in the same order, else 0."""

    input_field = "trajectory_exact_match_input"
    result_field = "trajectory_exact_match_results"

    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        return 1.0 if list(predicted) == list(reference) else 0.0


class TrajectoryInOrderMatch(TrajectoryComparison):
    """1 when the reference calls occur in the prediction in the same order (extra calls
    allowed anywhere), else 0."""

    input_field = "trajectory_in_order_match_input"
    result_field = "trajectory_in_order_match_results"

    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        remaining = iter(predicted)
        # Each reference call consumes the first equal predicted call after the previous match.
        found = all(any(call == wanted for call in remaining) for wanted in reference)
        return 1.0 if found else 0.0


class TrajectoryAnyOrderMatch(TrajectoryComparison):
    """1 when every reference call occurs in the prediction, in any order, as often as in the
    reference (extra calls allowed), else 0."""

    input_field = "trajectory_any_order_match_input"
    result_field = "trajectory_any_order_match_results"

    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        return 1.0 if Counter(reference) <= Counter(predicted) else 0.0


class TrajectoryPrecision(TrajectoryComparison):
    """Matched calls over predicted calls (multisets); both empty = 1, only prediction empty = 0."""

    input_field = "trajectory_precision_input"
    result_field = "trajectory_precision_results"

    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        return ratio(matched(predicted, reference), len(predicted), len(reference))


class TrajectoryRecall(TrajectoryComparison):
    """Matched calls over reference calls (multisets); both empty = 1, only reference empty = 0."""

    input_field = "trajectory_recall_input"
    result_field = "trajectory_recall_results"

    def compare(self, predicted: Sequence[CallKey], reference: Sequence[CallKey]) -> float:
        return ratio(matched(predicted, reference), len(reference), len(predicted))


class TrajectorySingleToolUse(ComputedMetric[str]):
    """1 when the predicted trajectory calls ``metric_spec.tool_name`` at least once, else 0."""

    input_field = "trajectory_single_tool_use_input"
    result_field = "trajectory_single_tool_use_results"
    required = ()  # a missing trajectory is an empty one (scores 0)

    def options(self, spec: Any, path: str) -> str:
        if not spec.tool_name.strip():
            raise InvalidArgument(f"{path}.tool_name", "tool_name is required (a non-empty string)")
        return str(spec.tool_name)

    def score(self, instance: Any, options: str, path: str) -> float:
        calls = instance.predicted_trajectory.tool_calls
        return 1.0 if any(call.tool_name == options for call in calls) else 0.0
