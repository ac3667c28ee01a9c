"""The judge metrics of the ``metric_inputs`` oneof that evald defines itself (``fluency_input``,
``safety_input``, ...): prompts rendered from a :class:`JudgePrompt`, template version 1.

Each such metric is one module with a :class:`DefinedJudgeMetric` subclass holding its
:class:`JudgePrompt` (criterion, rubric, scale, instance fields it reads). The instance text is
inserted verbatim, never template-expanded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import FieldViolation, InvalidArgument
from evald.judging import engine
from evald.judging.verdicts import Scale
from evald.metrics.base import Metric

TEMPLATE_VERSION = 1
"""The only template version; ``metric_spec.version`` 0 (unset) means this one."""

LABELS = {
    "instruction": "User instruction",
    "context": "Context",
    "reference": "Reference answer",
    "prediction": "Response",
}


@dataclass(frozen=True)
class JudgePrompt:
    """What the judge of one defined metric checks and how it answers."""

    title: str
    criterion: str
    rubric: tuple[tuple[str, str], ...]
    """(answer, meaning) pairs, best first."""
    scale: Scale | None
    """The pointwise scale; None for a pairwise metric."""
    required: tuple[str, ...] = ()
    """Instance fields that must be non-empty, besides the response(s)."""
    optional: tuple[str, ...] = ()
    """Instance fields shown to the judge when non-empty."""
    has_reference_option: bool = False
    """Whether the spec has ``use_reference`` (the reference is shown only when it is set)."""


class DefinedJudgeMetric(Metric):
    """A judge metric evald defines; subclasses set ``prompt``, ``input_field`` and
    ``result_field``."""

    prompt: ClassVar[JudgePrompt]
    """What the judge checks and how it answers."""

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        d = self.prompt
        fields = self.fields(metric_input, path)
        result = self.result_class()()
        out: Any = result  # the concrete result class is only known at run time
        outcome: engine.PairwiseOutcome | engine.PointwiseOutcome
        if d.scale is None:
            outcome = await engine.pairwise(
                call, lambda flip: render_pairwise(d, fields, flip), None
            )
            assert outcome.choice is not None  # strict mode: every sample was readable
            out.pairwise_choice = api.messages.PairwiseChoice.Value(outcome.choice)
        else:
            outcome = await engine.pointwise(call, render_pointwise(d, fields), None, d.scale)
            assert outcome.score is not None  # strict mode: every sample was readable
            out.score = outcome.score  # always set, 0.0 included
        out.explanation = outcome.explanation
        if outcome.confidence is not None:
            out.confidence = outcome.confidence
        return result

    def fields(self, metric_input: Any, path: str) -> dict[str, str]:
        """The instance fields shown to the judge, validated against the prompt's fields."""
        d = self.prompt
        spec = metric_input.metric_spec
        if spec.version not in (0, TEMPLATE_VERSION):
            raise InvalidArgument(
                f"{path}.metric_spec.version",
                f"version {spec.version} is not available; evald has version {TEMPLATE_VERSION} "
                "(0 = latest)",
            )
        if not metric_input.HasField("instance"):
            raise InvalidArgument(f"{path}.instance", "an instance is required")
        instance = metric_input.instance
        responses = (
            ("prediction",) if d.scale is not None else ("prediction", "baseline_prediction")
        )
        required = list(d.required)
        shown = [*d.required, *d.optional]
        if d.has_reference_option and spec.use_reference:
            required.append("reference")
            shown.append("reference")
        violations = [
            FieldViolation(f"{path}.instance.{name}", f"required field '{name}' is missing")
            for name in responses
            if not instance.HasField(name)
        ]
        violations += [
            FieldViolation(
                f"{path}.instance.{name}",
                f"'{name}' must not be empty"
                + (" when use_reference is set" if name == "reference" else ""),
            )
            for name in required
            if not getattr(instance, name).strip()
        ]
        if violations:
            raise InvalidArgument.of(violations)
        values = {name: getattr(instance, name) for name in responses}
        values.update({n: getattr(instance, n) for n in shown if getattr(instance, n).strip()})
        return values


HEADER = (
    "You are an impartial, careful evaluator of AI-generated text. Judge only by the criterion "
    "below; do not reward length or style that the criterion does not ask for.\n"
)


def _inputs(fields: dict[str, str], responses: list[tuple[str, str]]) -> str:
    parts = [
        f"### {LABELS[name]}\n{fields[name]}\n"
        for name in ("instruction", "context", "reference")
        if name in fields
    ]
    parts += [f"### {label}\n{text}\n" for label, text in responses]
    return "\n".join(parts)


def render_pointwise(d: JudgePrompt, fields: dict[str, str]) -> str:
    """The judge prompt of a pointwise metric for one instance."""
    assert d.scale is not None
    rubric = "\n".join(f"- {value}: {meaning}" for value, meaning in d.rubric)
    return (
        f"{HEADER}\n# Task\nRate the response for {d.title}.\n\n"
        f"# Criterion: {d.title}\n{d.criterion}\n\n"
        f"# Rating rubric ({d.scale.describe()})\n{rubric}\n\n"
        f"# Inputs\n{_inputs(fields, [(LABELS['prediction'], fields['prediction'])])}\n"
        "# Output\nFirst reason briefly about the criterion, then give the rating. Answer with "
        'one JSON object and nothing else: {"explanation": "<your reasoning>", '
        f'"score": <{d.scale.describe()}>}}\n'
    )


def render_pairwise(d: JudgePrompt, fields: dict[str, str], flipped: bool) -> str:
    """The judge prompt of a pairwise metric: A = baseline, B = candidate (swapped if flipped)."""
    a, b = fields["baseline_prediction"], fields["prediction"]
    if flipped:
        a, b = b, a
    rubric = "\n".join(f"- {value}: {meaning}" for value, meaning in d.rubric)
    return (
        f"{HEADER}\n# Task\nCompare Response A and Response B for {d.title} and say which is "
        "better. The order of the responses says nothing about their quality.\n\n"
        f"# Criterion: {d.title}\n{d.criterion}\n\n"
        f"# Rating rubric\n{rubric}\n\n"
        f"# Inputs\n{_inputs(fields, [('Response A', a), ('Response B', b)])}\n"
        "# Output\nFirst judge each response against the criterion, then compare them. Answer "
        'with one JSON object and nothing else: {"explanation": "<your reasoning>", '
        '"pairwise_choice": "A" | "SAME" | "B"}\n'
    )


def likert(best: str, good: str, fair: str, poor: str, worst: str) -> tuple[tuple[str, str], ...]:
    """A 1-5 rubric, best first."""
    return (("5", best), ("4", good), ("3", fair), ("2", poor), ("1", worst))


PAIRWISE_RUBRIC = (
    ("A", "Response A is better by the criterion."),
    ("SAME", "Both responses are equally good (or equally bad) by the criterion."),
    ("B", "Response B is better by the criterion."),
)
