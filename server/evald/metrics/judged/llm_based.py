"""``llm_based_metric_spec``: a judge (see :mod:`evald.judges`) reads the filled template and
gives a verdict, or judges the response rubric by rubric.

Template variables (``{name}``) are those of :mod:`evald.metrics.judged.pointwise`.
``judge_autorater_config`` replaces the request's ``autorater_config`` for this metric.
``result_parser_config.custom_code_parser_config`` runs the caller's
``parse_results(responses: list[str]) -> dict`` on the judge's raw answers in the sandbox.

Rubric-based ``llm_based_metric_spec`` (a ``rubrics_source`` is set), with the rules of
:mod:`evald.judging.rubrics` (score = importance-weighted share of rubrics met):

- ``rubric_group_key``: the rubrics of ``instance.rubric_groups[key]`` (each needs
  ``content.property.description``); no generation call.
- ``rubric_generation_spec``: the judge writes the rubrics. ``prompt_template`` (filled like
  ``metric_prompt_template``; evald's generic prompt when empty) is followed by evald's rubric
  rules and output format; ``rubric_content_type`` picks questions (default), properties or
  Python assertions (judged by reading, never run); ``rubric_type_ontology`` is the list of
  allowed ``Rubric.type``; ``model_config`` is the autorater config of the generation call.
- ``predefined_rubric_generation_spec``: the rubric writer of a rubric-based named metric
  (e.g. ``general_quality_v1``) with its ``metric_spec_parameters``.

Verdicts: with ``metric_prompt_template``, the filled template (``{rubrics}`` is the numbered
rubric list, appended when the template does not use it) plus evald's output format; without,
evald's critique prompt showing the prompt, response, reference, other_data and agent trace.
``result_parser_config`` cannot be combined with rubrics (UNIMPLEMENTED).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from evald.call import Call
from evald.errors import FailedPrecondition, InvalidArgument, Unimplemented
from evald.judging import engine, rubrics, templates, transcript
from evald.judging.media import MediaSink
from evald.judging.rubrics import Section
from evald.judging.verdicts import OPEN
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.judged.pointwise import system_of, template_of, variables
from evald.metrics.named.vertex.base import GeckoUnserved, RubricNamed
from evald.metrics.params import Params
from evald.sandbox import DISABLED

PARSER = "parse_results"


class LlmBased(Metric):
    """A judge verdict on the caller's template, or rubric by rubric."""

    spec_fields = ("llm_based_metric_spec",)

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        if spec.HasField("judge_autorater_config"):
            call = call.with_autorater_config(spec.judge_autorater_config)
        if spec.WhichOneof("rubrics_source") is not None:
            return await _rubric_based(spec, instance, call, path)
        sink = MediaSink()
        prompt = templates.fill(template_of(spec, path), variables(instance, sink), instance.path)
        parser = spec.result_parser_config
        if parser.WhichOneof("parser") != "custom_code_parser_config":
            outcome = await engine.pointwise(call, prompt, system_of(spec), OPEN, media=sink.media)
            assert outcome.score is not None
            return Outcome(outcome.score, outcome.explanation, saw_all_parts=True)
        code = parser.custom_code_parser_config.parsing_function
        field = f"{path}.result_parser_config.custom_code_parser_config.parsing_function"
        if not code.strip():
            raise InvalidArgument(field, f"the source of def {PARSER}(responses) is required")
        if not call.sandbox.enabled:  # before paying for a judge call
            raise FailedPrecondition(DISABLED)
        raw = await engine.pointwise(
            call, prompt, system_of(spec), OPEN, strict=False, media=sink.media
        )
        result = await call.sandbox.run(code, raw.raw, function=PARSER, field=field)
        return Outcome(result.score, result.explanation)


GENERIC_FOCUS = (
    "The properties a high-quality response to this prompt must have: each explicit instruction "
    "and constraint, then correctness, completeness and relevance of the content the prompt "
    "needs, and clarity."
)


def _group_rubrics(instance: InstanceView, key: str, path: str) -> list[Any]:
    where = f"{instance.path}.rubric_groups[{key!r}]"
    if key not in instance.rubric_groups:
        have = ", ".join(repr(k) for k in sorted(instance.rubric_groups)) or "none"
        raise InvalidArgument(
            f"{path}.rubric_group_key", f"no rubric group {key!r} in the instance (it has: {have})"
        )
    return rubrics.group_rubrics(instance.rubric_groups[key], where)


async def _generated(spec: Any, instance: InstanceView, call: Call, path: str) -> list[Any]:

    gen = spec.rubric_generation_spec
    content_type = rubrics.content_type_name(gen.rubric_content_type)
    ontology = [t.strip() for t in gen.rubric_type_ontology if t.strip()]
    sink = MediaSink()
    media: tuple[Any, ...] = ()
    if gen.prompt_template.strip():
        filled = templates.fill(gen.prompt_template, variables(instance, sink), instance.path)
        prompt = f"{filled}\n\n{rubrics.format_rules(content_type, ontology)}"
        media = sink.media
    else:
        text = instance.text("prompt")
        if text is None or not text.strip():
            raise InvalidArgument(
                f"{instance.path}.prompt",
                "rubric generation without a prompt_template needs the instance's prompt",
            )
        sections, media = _sections(instance, response=False)
        prompt = rubrics.generation_prompt(
            GENERIC_FOCUS, sections, content_type=content_type, ontology=ontology
        )
    config = gen.model_config if gen.HasField("model_config") else None
    return await rubrics.generate(call, prompt, config=config, ontology=ontology, media=media)


def rubric_metric(call: Call, named: Any, where: str) -> tuple[RubricNamed, Params]:
    """The rubric-based named metric of a ``PredefinedMetricSpec`` found at ``where`` and its
    parameters; INVALID_ARGUMENT for another metric, UNIMPLEMENTED for one evald cannot judge."""
    catalog = call.services.metrics.named
    metric = catalog.get(named.metric_spec_name)
    if isinstance(metric, GeckoUnserved):
        raise Unimplemented(
            f"{where}.metric_spec_name: {named.metric_spec_name} writes rubrics about images or "
            "videos for a multimodal judge; evald does not serve it"
        )
    if not isinstance(metric, RubricNamed):
        choices = ", ".join(n for n, m in catalog.items() if isinstance(m, RubricNamed))
        raise InvalidArgument(
            f"{where}.metric_spec_name",
            f"{named.metric_spec_name!r} is not a rubric-based predefined metric; use one of: "
            + choices,
        )
    values = json_format.MessageToDict(named.metric_spec_parameters)
    return metric, Params(values, metric.parameters, f"{where}.metric_spec_parameters")


async def _predefined_rubrics(
    spec: Any, instance: InstanceView, call: Call, path: str
) -> list[Any]:
    where = f"{path}.predefined_rubric_generation_spec"
    metric, params = rubric_metric(call, spec.predefined_rubric_generation_spec, where)
    return await metric.rubrics_for(params, instance, call)


def _sections(instance: InstanceView, *, response: bool = True) -> tuple[list[Any], Any]:
    """The instance's inputs as labelled sections (prompt, context, other data, trace, ...),
    and the media their texts refer to."""

    found = transcript.sources(instance.message, instance.path)
    sections = []
    for name, label in (("prompt", "User prompt"), ("context", "Context")):
        text = found.get(name)
        if text is not None:
            sections.append(Section(label, text))
    sections += [Section(key, text) for key, text in found.other.items() if text.strip()]
    if found.get("agent") is not None:
        sections.append(Section("Agent trace", found.agent or ""))
    if found.get("reference") is not None:
        sections.append(Section("Reference answer", found.reference or ""))
    if response:
        instance.require("response")
        sections.append(Section("Response", found.response or ""))
    return sections, found.media


async def _rubric_based(spec: Any, instance: InstanceView, call: Call, path: str) -> Outcome:

    source = spec.WhichOneof("rubrics_source")
    if spec.result_parser_config.WhichOneof("parser") is not None:
        raise Unimplemented(
            f"{path}.result_parser_config: a custom result parser cannot be combined with "
            f"rubrics ({source}); evald reads the rubric verdicts itself"
        )
    # Check the critique inputs before paying for rubric generation.
    if spec.HasField("metric_prompt_template") and spec.metric_prompt_template.strip():
        values = {**variables(instance, MediaSink()), "rubrics": ""}
        templates.fill(spec.metric_prompt_template, values, instance.path)
    else:
        instance.require("response")
    if source == "rubric_group_key":
        found = _group_rubrics(instance, spec.rubric_group_key, path)
    elif source == "rubric_generation_spec":
        found = await _generated(spec, instance, call, path)
    else:
        found = await _predefined_rubrics(spec, instance, call, path)
    if spec.HasField("metric_prompt_template") and spec.metric_prompt_template.strip():
        sink = MediaSink()
        values = {**variables(instance, sink), "rubrics": rubrics.rubric_list(found)}
        filled = templates.fill(spec.metric_prompt_template, values, instance.path)
        prompt = rubrics.custom_critique_prompt(filled, found)
        media = sink.media
    else:
        sections, media = _sections(instance)
        prompt = rubrics.critique_prompt(sections, found)
    verdicts = await rubrics.critique(call, prompt, len(found), system=system_of(spec), media=media)
    judged = rubrics.Judged(found, verdicts)
    return Outcome(
        judged.score, judged.explanation(), judged.verdict_messages(), saw_all_parts=True
    )
