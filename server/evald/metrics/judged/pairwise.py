"""A choice between a baseline and a candidate response, judged with the caller's own prompt
template: ``pairwise_metric_input`` and the Metric API's ``pairwise_metric_spec``.

Variables are filled as for :mod:`evald.metrics.judged.pointwise`. The candidate is the field
named by ``candidate_response_field_name`` (default ``response``), the baseline the one named by
``baseline_response_field_name`` (default ``baseline_model_response``). The judge is asked for
JSON ``{"explanation", "pairwise_choice": A|SAME|B}`` (A = baseline, B = candidate). In the
Metric API the score is 1 when the candidate wins, 0 when the baseline wins, 0.5 for a tie, and
the explanation starts with the choice. Half the samples are flipped (the responses swapped and
the answer mapped back) unless ``flip_enabled`` is false; a position-biased judge thus comes out
as a tie. With ``return_raw_output`` each flipped sample's raw output starts with
``[flipped: Response A is the candidate, Response B the baseline]`` and the choice stays empty.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judging import engine, templates
from evald.judging.media import MediaSink
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.judged.pointwise import (
    input_instance,
    input_variables_path,
    raw_output,
    system_of,
    template_of,
    variables,
)

DEFAULT_CANDIDATE_FIELD = "response"
DEFAULT_BASELINE_FIELD = "baseline_model_response"
"""Field names the SDK uses when the spec names none."""
SCORES = {"CANDIDATE": 1.0, "BASELINE": 0.0, "TIE": 0.5}
"""The Metric API score of each choice."""


class Pairwise(Metric):
    """A choice between a baseline and a candidate response, judged with the caller's
    template."""

    input_field = "pairwise_metric_input"
    result_field = "pairwise_metric_result"
    spec_fields = ("pairwise_metric_spec",)

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        spec = metric_input.metric_spec
        template = template_of(spec, f"{path}.metric_spec")
        instance = input_instance(metric_input, path)
        sink = MediaSink()
        values = templates.instance_variables(instance, f"{path}.instance", sink)
        where = input_variables_path(instance, path)
        candidate = spec.candidate_response_field_name or DEFAULT_CANDIDATE_FIELD
        baseline = spec.baseline_response_field_name or DEFAULT_BASELINE_FIELD
        prompt = templates.fill(template, values, where)  # validates before any judge call
        plan = engine.plan(call)
        swappable = candidate in values and baseline in values
        if plan.flip_requested and not swappable:
            missing = next(n for n in (candidate, baseline) if n not in values)
            raise InvalidArgument(
                where, f"flip_enabled needs the response field {missing!r} in the instance"
            )

        def render(flipped: bool) -> str:
            if not flipped:
                return prompt
            swapped = {**values, candidate: values[baseline], baseline: values[candidate]}
            return templates.fill(template, swapped, where)

        raw = raw_output(spec)
        outcome = await engine.pairwise(
            call,
            render,
            system_of(spec),
            strict=not raw,
            media=sink.media,
            flip=None if swappable else False,  # the default flip needs both responses
        )
        if raw:
            result = api.messages.PairwiseMetricResult()
            result.custom_output.raw_outputs.raw_output.extend(outcome.raw)
            return result
        assert outcome.choice is not None  # strict mode: an unreadable answer raised
        # The constructor takes the enum by name: BASELINE, CANDIDATE or TIE.
        return api.messages.PairwiseMetricResult(
            pairwise_choice=outcome.choice, explanation=outcome.explanation
        )

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        template = template_of(spec, path)
        sink = MediaSink()
        values = variables(instance, sink)
        candidate = spec.candidate_response_field_name or DEFAULT_CANDIDATE_FIELD
        baseline = spec.baseline_response_field_name or DEFAULT_BASELINE_FIELD
        for name in (candidate, baseline):
            if name not in values:
                raise InvalidArgument(
                    f"{instance.path}.other_data",
                    f"pairwise needs the response field {name!r} (response or an other_data key)",
                )
        templates.fill(template, values, instance.path)  # validate before calling the judge

        def render(flipped: bool) -> str:
            swapped = values
            if flipped:
                swapped = {**values, candidate: values[baseline], baseline: values[candidate]}
            return templates.fill(template, swapped, instance.path)

        outcome = await engine.pairwise(call, render, system_of(spec), media=sink.media)
        assert outcome.choice is not None
        return Outcome(
            SCORES[outcome.choice],
            f"pairwise_choice: {outcome.choice}. {outcome.explanation}",
            saw_all_parts=True,
        )
