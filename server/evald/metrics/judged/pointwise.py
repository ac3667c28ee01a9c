"""A score for one response, judged with the caller's own prompt template:
``pointwise_metric_input`` and the Metric API's ``pointwise_metric_spec``.

The template's ``{name}`` placeholders are filled from the instance. ``pointwise_metric_input``
reads ``json_instance`` (a JSON object) or ``content_map_instance`` (text parts);
``pointwise_metric_spec`` reads the EvaluationInstance's ``prompt``, ``response``,
``reference`` (those set) and every ``other_data`` key. Contents are rendered for the judge
(function calls as text, several turns by role); images, audio, video and documents reach the
judge as media, the variable holding each one's label. The judge is asked for JSON
``{"explanation", "score"}`` (any number). With ``custom_output_format_config.return_raw_output``
(metric input only) no schema is imposed, every sample's text is returned in
``custom_output.raw_outputs``, and ``score`` and ``explanation`` stay empty (the caller parses).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judging import engine, templates, transcript
from evald.judging.media import MediaSink
from evald.judging.verdicts import OPEN
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import TEXT_FIELDS, InstanceView


class Pointwise(Metric):
    """A score for one response, judged with the caller's template (score scale: any number)."""

    input_field = "pointwise_metric_input"
    result_field = "pointwise_metric_result"
    spec_fields = ("pointwise_metric_spec",)

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        spec = metric_input.metric_spec
        template = template_of(spec, f"{path}.metric_spec")
        instance = input_instance(metric_input, path)
        sink = MediaSink()
        values = templates.instance_variables(instance, f"{path}.instance", sink)
        prompt = templates.fill(template, values, input_variables_path(instance, path))
        raw = raw_output(spec)
        outcome = await engine.pointwise(
            call, prompt, system_of(spec), OPEN, strict=not raw, media=sink.media
        )
        result = api.messages.PointwiseMetricResult()
        if raw:
            result.custom_output.raw_outputs.raw_output.extend(outcome.raw)
            return result
        assert outcome.score is not None  # strict mode: an unreadable answer raised
        result.score = outcome.score
        result.explanation = outcome.explanation
        return result

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        sink = MediaSink()
        values = variables(instance, sink)
        prompt = templates.fill(template_of(spec, path), values, instance.path)
        outcome = await engine.pointwise(call, prompt, system_of(spec), OPEN, media=sink.media)
        assert outcome.score is not None  # strict mode: an unreadable answer raised
        return Outcome(outcome.score, outcome.explanation, saw_all_parts=True)


def variables(instance: InstanceView, sink: MediaSink) -> dict[str, str]:
    """Template variables of a Metric API instance: the set fields and the other_data entries,
    rendered for a judge (media labelled in ``sink``)."""
    message = instance.message
    entries = message.other_data.map_instance
    values = {
        key: transcript.instance_data_text(
            entries[key], sink, f"{instance.path}.other_data.map_instance[{key!r}]"
        )
        or ""
        for key in sorted(entries)
    }
    for name in TEXT_FIELDS:
        if message.HasField(name):
            text = transcript.instance_data_text(
                getattr(message, name), sink, f"{instance.path}.{name}"
            )
            values[name] = text or ""
    return values


def template_of(spec: Any, path: str) -> str:
    """The spec's ``metric_prompt_template`` (``path`` is the spec's field)."""
    if not spec.HasField("metric_prompt_template") or not spec.metric_prompt_template.strip():
        raise InvalidArgument(f"{path}.metric_prompt_template", "a prompt template is required")
    return str(spec.metric_prompt_template)


def system_of(spec: Any) -> str | None:
    """The spec's ``system_instruction``, if set."""
    return spec.system_instruction if spec.HasField("system_instruction") else None


def raw_output(spec: Any) -> bool:
    """Whether the spec asks for the judge's raw answers (no output schema)."""
    config = spec.custom_output_format_config
    return config.WhichOneof("custom_output_format_config") == "return_raw_output" and bool(
        config.return_raw_output
    )


def input_instance(metric_input: Any, path: str) -> Any:
    """The ``instance`` of a metric input, which must be set."""
    if not metric_input.HasField("instance"):
        raise InvalidArgument(f"{path}.instance", "an instance is required")
    return metric_input.instance


def input_variables_path(instance: Any, path: str) -> str:
    """The field path of a metric input instance's variables."""
    which = instance.WhichOneof("instance") or "json_instance"
    return f"{path}.instance.{which}"
