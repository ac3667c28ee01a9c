"""``pointwise_metric_input`` / ``pairwise_metric_input``: the caller's own prompt template.

The template's ``{name}`` placeholders are filled from the instance (``json_instance``, a JSON
object, or ``content_map_instance`` with text parts). The judge is asked for JSON
``{"explanation", "score"}`` (pointwise) or ``{"explanation", "pairwise_choice": A|SAME|B}``
(pairwise, A = baseline, B = candidate). With ``custom_output_format_config.return_raw_output``
no schema is imposed, and every sample's text is returned in ``custom_output.raw_outputs``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judging import engine, templates
from evald.judging.verdicts import OPEN
from evald.metrics.base import Handler

DEFAULT_CANDIDATE_FIELD = "response"
DEFAULT_BASELINE_FIELD = "baseline_model_response"
"""Field names the SDK uses when the spec names none."""


def _template(spec: Any, path: str) -> str:
    if not spec.HasField("metric_prompt_template") or not spec.metric_prompt_template.strip():
        raise InvalidArgument(f"{path}.metric_prompt_template", "a prompt template is required")
    return str(spec.metric_prompt_template)


def _raw(spec: Any) -> bool:
    config = spec.custom_output_format_config
    return config.WhichOneof("custom_output_format_config") == "return_raw_output" and bool(
        config.return_raw_output
    )


def _system(spec: Any) -> str | None:
    return spec.system_instruction if spec.HasField("system_instruction") else None


def _instance(metric_input: Any, path: str) -> Any:
    if not metric_input.HasField("instance"):
        raise InvalidArgument(f"{path}.instance", "an instance is required")
    return metric_input.instance


class PointwiseMetric(Handler):
    """A score for one response, judged with the caller's template (score scale: any number)."""

    input_field = "pointwise_metric_input"
    result_field = "pointwise_metric_result"

    async def evaluate(self, metric_input: Any, path: str, call: Call) -> Message:
        spec = metric_input.metric_spec
        template = _template(spec, f"{path}.metric_spec")
        instance = _instance(metric_input, path)
        values = templates.instance_variables(instance, f"{path}.instance")
        prompt = templates.fill(template, values, _variables_path(instance, path))
        raw = _raw(spec)
        outcome = await engine.pointwise(call, prompt, _system(spec), OPEN, strict=not raw)
        result = api.messages.PointwiseMetricResult(explanation=outcome.explanation)
        if outcome.score is not None:
            result.score = outcome.score
        if raw:
            result.custom_output.raw_outputs.raw_output.extend(outcome.raw)
        return result


class PairwiseMetric(Handler):
    """A choice between a baseline and a candidate response, judged with the caller's template."""

    input_field = "pairwise_metric_input"
    result_field = "pairwise_metric_result"

    async def evaluate(self, metric_input: Any, path: str, call: Call) -> Message:
        spec = metric_input.metric_spec
        template = _template(spec, f"{path}.metric_spec")
        instance = _instance(metric_input, path)
        values = templates.instance_variables(instance, f"{path}.instance")
        where = _variables_path(instance, path)
        candidate = spec.candidate_response_field_name or DEFAULT_CANDIDATE_FIELD
        baseline = spec.baseline_response_field_name or DEFAULT_BASELINE_FIELD
        prompt = templates.fill(template, values, where)  # validates before any judge call
        plan = engine.sampling(call.autorater_config)
        if plan.flip:
            for name in (candidate, baseline):
                if name not in values:
                    raise InvalidArgument(
                        where, f"flip_enabled needs the response field {name!r} in the instance"
                    )

        def render(flipped: bool) -> str:
            if not flipped:
                return prompt
            swapped = {**values, candidate: values[baseline], baseline: values[candidate]}
            return templates.fill(template, swapped, where)

        raw = _raw(spec)
        outcome = await engine.pairwise(call, render, _system(spec), strict=not raw)
        result = api.messages.PairwiseMetricResult()
        if outcome.choice is not None:
            # The constructor takes the enum by name: BASELINE, CANDIDATE or TIE.
            result = api.messages.PairwiseMetricResult(
                pairwise_choice=outcome.choice, explanation=outcome.explanation
            )
        if raw:
            result.custom_output.raw_outputs.raw_output.extend(outcome.raw)
        return result


def _variables_path(instance: Any, path: str) -> str:
    which = instance.WhichOneof("instance") or "json_instance"
    return f"{path}.instance.{which}"
