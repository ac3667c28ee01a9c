"""The judge metrics of the ``metric_inputs`` oneof that evald defines itself (``fluency_input``,
``safety_input``, ...), template version 1.

Each such metric is one module with a :class:`DefinedJudgeMetric` subclass holding its
:class:`JudgePrompt`: evald's own prompt (what is measured, criteria, rating rubric, evaluation
steps, then the inputs and the output format), its scale and the instance fields it reads. Under
the ``vertex-sdk`` prompt set (:mod:`evald.judges.prompt_sets`) the ten metrics with a published
analogue send the installed SDK's template instead, filled by :func:`fill_published`. Either way
the instance text is inserted verbatim, never template-expanded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import FailedPrecondition, FieldViolation, InvalidArgument
from evald.judges import prompt_sets
from evald.judges.spec import ConfigError
from evald.judging import engine
from evald.judging.verdicts import Scale
from evald.metrics.base import Metric

TEMPLATE_VERSION = 1
"""The only template version; ``metric_spec.version`` 0 (unset) means this one."""

LABELS = {
    "instruction": "User instruction",
    "context": "Context",
    "reference": "Reference",
    "prediction": "Response",
}


@dataclass(frozen=True)
class JudgePrompt:
    """What the judge of one defined metric checks and how it answers: the parts of evald's own
    prompt (what is measured, criteria, rating rubric, evaluation steps) and the instance fields
    it reads."""

    title: str
    """The metric's name in the prompt ("fluency")."""
    definition: str
    """What the metric measures, one sentence."""
    criteria: tuple[tuple[str, str], ...]
    """(name, description) pairs: what the judge checks."""
    rubric: tuple[tuple[str, str], ...]
    """(answer, meaning) pairs, best first."""
    steps: tuple[str, ...]
    """How the judge works through one response, in order."""
    scale: Scale | None
    """The pointwise scale; None for a pairwise metric."""
    required: tuple[str, ...] = ()
    """Instance fields that must be non-empty, besides the response(s)."""
    optional: tuple[str, ...] = ()
    """Instance fields shown to the judge when non-empty."""
    has_reference_option: bool = False
    """Whether the spec has ``use_reference`` (the reference is shown only when it is set)."""

    def pairwise(self, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> JudgePrompt:
        """The pairwise form of this pointwise prompt: same criteria, an A/SAME/B rubric and
        steps that judge each response, then compare."""
        return replace(
            self,
            rubric=PAIRWISE_RUBRIC,
            steps=PAIRWISE_STEPS,
            scale=None,
            required=required,
            optional=optional,
        )


class DefinedJudgeMetric(Metric):
    """A judge metric evald defines; subclasses set ``prompt``, ``input_field`` and
    ``result_field``."""

    prompt: ClassVar[JudgePrompt]
    """What the judge checks and how it answers."""

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        d = self.prompt
        fields = self.fields(metric_input, path)
        published = self.published(call)
        result = self.result_class()()
        out: Any = result  # the concrete result class is only known at run time
        outcome: engine.PairwiseOutcome | engine.PointwiseOutcome
        if d.scale is None:
            render: Callable[[bool], str] = (
                (lambda flip: render_pairwise(d, fields, flip))
                if published is None
                else (lambda flip: fill_published(published, fields, flip))
            )
            outcome = await engine.pairwise(call, render, None)
            assert outcome.choice is not None  # strict mode: every sample was readable
            out.pairwise_choice = api.messages.PairwiseChoice.Value(outcome.choice)
        else:
            prompt = (
                render_pointwise(d, fields)
                if published is None
                else fill_published(published, fields, False)
            )
            outcome = await engine.pointwise(call, prompt, None, d.scale)
            assert outcome.score is not None  # strict mode: every sample was readable
            out.score = outcome.score  # always set, 0.0 included
        out.explanation = outcome.explanation
        if outcome.confidence is not None:
            out.confidence = outcome.confidence
        return result

    def published(self, call: Call) -> str | None:
        """The published template this metric uses under the server's prompt set, or None for
        evald's own prompt (the ``evald`` set, or a metric with no published analogue)."""
        name = self.input_field
        if name is None or name not in prompt_sets.TEMPLATES:
            return None
        if call.judges.runtime().config.prompts != prompt_sets.VERTEX_SDK:
            return None
        try:
            return prompt_sets.vertex_sdk_templates()[name]
        except ConfigError as exc:  # loaded when the config was; only if the SDK went since
            raise FailedPrecondition(str(exc)) from None

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


def _inputs(fields: dict[str, str], responses: list[tuple[str, str]]) -> str:
    parts = [
        f"## {LABELS[name]}\n{fields[name]}\n"
        for name in ("instruction", "context", "reference")
        if name in fields
    ]
    parts += [f"## {label}\n{text}\n" for label, text in responses]
    return "\n".join(parts)


def _criteria(d: JudgePrompt) -> str:
    return "\n".join(f"- {name}: {text}" for name, text in d.criteria)


def _reference_note(fields: dict[str, str]) -> str:
    if "reference" not in fields:
        return ""
    return "A reference is given: compare the response with it when judging the criteria.\n"


def render_pointwise(d: JudgePrompt, fields: dict[str, str]) -> str:
    """evald's judge prompt of a pointwise metric for one instance."""
    assert d.scale is not None
    rubric = "\n".join(f"- {value}: {meaning}" for value, meaning in d.rubric)
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(d.steps, 1))
    return (
        f"# Task\nYou are grading one AI-generated response for {d.title}. Read the inputs, "
        "judge the response against the criteria by following the evaluation steps, and choose "
        "exactly one rating from the rating rubric.\n\n"
        f"# Evaluation\n## Metric\n{d.definition}\n\n"
        f"## Criteria\n{_criteria(d)}\n{_reference_note(fields)}\n"
        f"## Rating rubric ({d.scale.describe()})\n{rubric}\n\n"
        f"## Evaluation steps\n{steps}\n\n"
        f"# Inputs\n{_inputs(fields, [(LABELS['prediction'], fields['prediction'])])}\n"
        "# Output format\nReason step by step first, then give the rating. Answer with one JSON "
        'object and nothing else: {"explanation": "<your reasoning>", '
        f'"score": <{d.scale.describe()}>}}\n'
    )


def render_pairwise(d: JudgePrompt, fields: dict[str, str], flipped: bool) -> str:
    """evald's judge prompt of a pairwise metric: A = baseline, B = candidate (swapped if
    flipped)."""
    a, b = fields["baseline_prediction"], fields["prediction"]
    if flipped:
        a, b = b, a
    rubric = "\n".join(f"- {value}: {meaning}" for value, meaning in d.rubric)
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(d.steps, 1))
    return (
        f"# Task\nYou are comparing two AI-generated responses, Response A and Response B, for "
        f"{d.title}. Read the inputs, judge each response against the criteria by following the "
        "evaluation steps, and say which one is better. The order of the responses says "
        "nothing about their quality.\n\n"
        f"# Evaluation\n## Metric\n{d.definition}\n\n"
        f"## Criteria\n{_criteria(d)}\n{_reference_note(fields)}\n"
        f"## Rating rubric\n{rubric}\n\n"
        f"## Evaluation steps\n{steps}\n\n"
        f"# Inputs\n{_inputs(fields, [('Response A', a), ('Response B', b)])}\n"
        "# Output format\nReason step by step first, then give your choice. Answer with one "
        'JSON object and nothing else: {"explanation": "<your reasoning>", '
        '"pairwise_choice": "A" | "SAME" | "B"}\n'
    )


def fill_published(template: str, fields: dict[str, str], flipped: bool) -> str:
    """A published template filled with an instance: ``{prompt}`` is the user input made of
    the instruction, context and reference (:func:`prompt_sets.user_prompt`), ``{response}`` the
    prediction and ``{baseline_model_response}`` the baseline (Response A; swapped with the
    prediction when ``flipped``)."""
    values = {"prompt": prompt_sets.user_prompt(fields), "response": fields["prediction"]}
    if "baseline_prediction" in fields:
        values["baseline_model_response"] = fields["baseline_prediction"]
        if flipped:
            values["response"], values["baseline_model_response"] = (
                values["baseline_model_response"],
                values["response"],
            )
    return prompt_sets.fill(template, values)


def likert(best: str, good: str, fair: str, poor: str, worst: str) -> tuple[tuple[str, str], ...]:
    """A 1-5 rubric, best first."""
    return (("5", best), ("4", good), ("3", fair), ("2", poor), ("1", worst))


PAIRWISE_RUBRIC = (
    ("A", "Response A meets the criteria better than Response B."),
    ("SAME", "Both responses meet the criteria equally well (or equally badly)."),
    ("B", "Response B meets the criteria better than Response A."),
)
PAIRWISE_STEPS = (
    "Judge Response A against each criterion.",
    "Judge Response B against each criterion.",
    "Compare the two judgements criterion by criterion and decide which response meets the "
    "criteria better overall, or whether they are equally good.",
    "Give your choice, A, SAME or B, as the rating rubric defines it.",
)
