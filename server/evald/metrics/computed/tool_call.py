"""Tool-call metrics: tool_call_valid, tool_name_match, tool_parameter_key_match,
tool_parameter_kv_match.

``prediction`` and ``reference`` are tool-call payloads (see ``tool_payload``). Calls are paired by
position; a malformed prediction scores 0, a malformed reference is the caller's error. The full
rules, with worked examples, are in docs/metrics/computed.md ("Tool-call and trajectory rules").
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from evald.errors import InvalidArgument
from evald.metrics.computed.base import ComputedMetric
from evald.metrics.tool_calls.payload import PayloadError, ToolCall, parse_payload

Options = TypeVar("Options")


def parse_prediction(text: str) -> list[ToolCall] | None:
    """The predicted calls, or None when the prediction is malformed (it then scores 0)."""
    try:
        return parse_payload(text)
    except PayloadError:
        return None


def positional_score(
    predicted: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    pair_score: Callable[[ToolCall, ToolCall], float],
) -> float:
    """Mean pair score over ``max(len)`` positions; unpaired positions score 0; both empty = 1."""
    longest = max(len(predicted), len(reference))
    if longest == 0:
        return 1.0
    total = sum(pair_score(p, r) for p, r in zip(predicted, reference, strict=False))
    return total / longest


def key_overlap(predicted: ToolCall, reference: ToolCall) -> float:
    """Shared argument names over all argument names (1 when neither has arguments); 0 when the
    tool names differ."""
    if predicted.name != reference.name:
        return 0.0
    pred, ref = predicted.strict_args.keys(), reference.strict_args.keys()
    union = pred | ref
    return len(pred & ref) / len(union) if union else 1.0


def value_overlap(predicted: ToolCall, reference: ToolCall, *, strict: bool) -> float:
    """Shared argument names with equal values over all argument names (1 when neither has
    arguments); 0 when the tool names differ."""
    if predicted.name != reference.name:
        return 0.0
    pred, ref = predicted.arguments(strict=strict), reference.arguments(strict=strict)
    union = pred.keys() | ref.keys()
    if not union:
        return 1.0
    equal = sum(1 for key in pred.keys() & ref.keys() if pred[key] == ref[key])
    return equal / len(union)


class PayloadComparison(ComputedMetric[Options]):
    """A metric comparing predicted calls with reference calls; references are checked first."""

    @abstractmethod
    def compare(
        self, predicted: Sequence[ToolCall], reference: Sequence[ToolCall], options: Options
    ) -> float:
        """Score well-formed predicted calls against the reference calls."""

    @staticmethod
    def reference(instance: Any, path: str) -> list[ToolCall]:
        """The reference calls of the instance at ``path``, or InvalidArgument naming the field."""
        try:
            return parse_payload(instance.reference)
        except PayloadError as exc:
            raise InvalidArgument(f"{path}.reference", f"reference {exc}") from None

    def score(self, instance: Any, options: Options, path: str) -> float:
        reference = self.reference(instance, path)
        predicted = parse_prediction(instance.prediction)
        return 0.0 if predicted is None else self.compare(predicted, reference, options)

    def score_batch(self, instances: Sequence[Any], options: Options, path: str) -> list[float]:
        # Every reference is checked before any scoring, so one error lists all bad references.
        references: list[list[ToolCall]] = []
        violations = []
        for i, instance in enumerate(instances):
            try:
                references.append(self.reference(instance, f"{path}[{i}]"))
            except InvalidArgument as exc:
                violations.extend(exc.violations)
        if violations:
            raise InvalidArgument.of(violations)
        scores = []
        for instance, reference in zip(instances, references, strict=True):
            predicted = parse_prediction(instance.prediction)
            scores.append(0.0 if predicted is None else self.compare(predicted, reference, options))
        return scores


class ToolCallValid(ComputedMetric[None]):
    """1 when the prediction is a well-formed payload with at least one tool call, else 0.

    The reference is neither required nor read: validity depends on the prediction alone, and
    the stable SDK sends ``reference=""`` when the dataset has none.
    """

    input_field = "tool_call_valid_input"
    result_field = "tool_call_valid_results"
    required = ("prediction",)

    def options(self, spec: Any, path: str) -> None:
        return None

    def score(self, instance: Any, options: None, path: str) -> float:
        predicted = parse_prediction(instance.prediction)
        return 1.0 if predicted else 0.0


class ToolNameMatch(PayloadComparison[None]):
    """1 when both sides name the same tools in the same order (both empty counts), else 0."""

    input_field = "tool_name_match_input"
    result_field = "tool_name_match_results"

    def options(self, spec: Any, path: str) -> None:
        return None

    def compare(
        self, predicted: Sequence[ToolCall], reference: Sequence[ToolCall], options: None
    ) -> float:
        same = [p.name for p in predicted] == [r.name for r in reference]
        return 1.0 if same else 0.0


class ToolParameterKeyMatch(PayloadComparison[None]):
    """Mean over call positions of the shared-argument-name ratio of same-named calls."""

    input_field = "tool_parameter_key_match_input"
    result_field = "tool_parameter_key_match_results"

    def options(self, spec: Any, path: str) -> None:
        return None

    def compare(
        self, predicted: Sequence[ToolCall], reference: Sequence[ToolCall], options: None
    ) -> float:
        return positional_score(predicted, reference, key_overlap)


class ToolParameterKVMatch(PayloadComparison[bool]):
    """Like key match, but an argument counts only when its value matches too.

    Options: ``use_strict_string_match`` (exact string values instead of normalised ones).
    """

    input_field = "tool_parameter_kv_match_input"
    result_field = "tool_parameter_kv_match_results"

    def options(self, spec: Any, path: str) -> bool:
        return bool(spec.use_strict_string_match)

    def compare(
        self, predicted: Sequence[ToolCall], reference: Sequence[ToolCall], options: bool
    ) -> float:
        return positional_score(
            predicted, reference, lambda p, r: value_overlap(p, r, strict=options)
        )
