"""GenerateInstanceRubrics (v1beta1): the rubrics a judge writes for one prompt, without judging
any response.

Request fields:

- ``contents`` (required): the prompt. One content is a single-turn prompt; several are a
  conversation, the last one being the request the rubrics are for. Parts are rendered as the
  judged metrics render them (:mod:`evald.judging.transcript`); images, audio, video and
  documents go to the judge as media (:mod:`evald.judging.media`), and a part the judge cannot
  be shown is INVALID_ARGUMENT naming it (``contents[0].parts[1].inline_data``).
- ``predefined_rubric_generation_spec`` (takes precedence over ``rubric_generation_spec``): the
  rubric writer of a rubric-based predefined metric (``metric_spec_name``, e.g.
  ``general_quality_v1``) with its ``metric_spec_parameters`` (``guidelines``).
- ``rubric_generation_spec``: ``prompt_template`` (``{prompt}`` is the contents as text; a
  template that does not use it gets the prompt appended as an input section; empty: evald's
  generic rubric prompt), ``rubric_content_type``, ``rubric_type_ontology`` and
  ``model_config`` (the autorater config of the generation call), as for the Metric API's
  ``llm_based_metric_spec.rubric_generation_spec``.
- ``agent_config``: the agent's instruction, tools and sub-agents, shown to the rubric writer
  as the agent trace. A predefined metric whose rubric writer reads no agent trace refuses it
  (INVALID_ARGUMENT), rather than dropping it unseen.
- ``location``: routing only, as for EvaluateInstances.

The response's ``generated_rubrics`` carry ``rubric_id`` (1, 2, ...), the text in
``content.property.description``, ``type`` and ``importance`` (see :mod:`evald.judging.rubrics`).
Errors name the request field: INVALID_ARGUMENT for a missing or unusable field, UNIMPLEMENTED
for a metric evald does not serve, FAILED_PRECONDITION without a judge, UNAVAILABLE when the
judge's answers stay unreadable.
"""

from __future__ import annotations

from typing import Any

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judges import Media
from evald.judging import engine, rubrics, templates, transcript
from evald.judging.media import MediaSink
from evald.judging.rubrics import Section
from evald.metrics.instance import InstanceView
from evald.metrics.judged.llm_based import GENERIC_FOCUS, rubric_metric
from evald.metrics.named.vertex.base import CONVERSATION

messages: Any = api.messages

PREDEFINED = "predefined_rubric_generation_spec"
SPEC = "rubric_generation_spec"
FIELDS = {"prompt": "contents", "agent": "agent_config"}
"""The request field each source of the built instance comes from (for error messages)."""


def describe(request: Any) -> tuple[str, int]:
    """What the request log and Prometheus call a request: the spec it uses (a bounded label,
    never a caller's metric name) and one instance."""
    if request.HasField(PREDEFINED):
        return PREDEFINED, 1
    return (SPEC, 1) if request.HasField(SPEC) else ("none", 0)


async def generate_instance_rubrics(request: Any, call: Call) -> Any:
    """The GenerateInstanceRubricsResponse of ``request``; raises EvalError."""
    prompt, media = _prompt(request)
    await _check_media(call, media, request)
    instance = messages.EvaluationInstance()
    instance.prompt.contents.contents.extend(request.contents)
    if request.HasField("agent_config"):
        instance.agent_data.agent_config.CopyFrom(request.agent_config)
    if request.HasField(PREDEFINED):
        metric, params = rubric_metric(call, request.predefined_rubric_generation_spec, PREDEFINED)
        if request.HasField("agent_config") and "agent" not in metric.generation_reads:
            raise InvalidArgument(
                "agent_config",
                f"{metric.name} writes its rubrics without an agent configuration; leave "
                "agent_config unset, or use a metric that reads the agent (e.g. "
                "tool_use_quality_v1)",
            )
        found = await metric.rubrics_for(params, InstanceView(instance), call, FIELDS)
    elif request.HasField(SPEC):
        found = await _from_spec(request.rubric_generation_spec, prompt, media, instance, call)
    else:
        raise InvalidArgument(
            SPEC,
            f"set {PREDEFINED} (a rubric-based predefined metric, e.g. general_quality_v1) or "
            f"{SPEC}",
        )
    response = messages.GenerateInstanceRubricsResponse()
    response.generated_rubrics.extend(found)
    return response


def _prompt(request: Any) -> tuple[Section, tuple[Media, ...]]:
    """The contents as one labelled section, and their media; INVALID_ARGUMENT when there is
    nothing to read."""
    if not request.contents:
        raise InvalidArgument("contents", "the prompt to write rubrics for is required")
    sink = MediaSink()
    text = transcript.contents_text(request.contents, sink, "contents")
    if not text.strip():
        raise InvalidArgument("contents", "the contents hold no part the judge can read")
    label = CONVERSATION if len(request.contents) > 1 else "User prompt"
    return Section(label, text), sink.media


async def _check_media(call: Call, media: tuple[Media, ...], request: Any) -> None:
    """INVALID_ARGUMENT naming the first part of ``contents`` the judge cannot be shown, before
    any judge call (the metric's own rendering would name the instance it builds instead)."""
    if not media:
        return
    spec = request.rubric_generation_spec
    config = (
        spec.model_config
        if not request.HasField(PREDEFINED) and spec.HasField("model_config")
        else None
    )
    plan = engine.plan(call, config)
    async with call.judges.session(call) as session:
        session.check_media(session.runtime.resolve(plan.model), media)


async def _from_spec(
    spec: Any, prompt: Section, media: tuple[Media, ...], instance: Any, call: Call
) -> list[Any]:
    content_type = rubrics.content_type_name(spec.rubric_content_type)
    ontology = [t.strip() for t in spec.rubric_type_ontology if t.strip()]
    agent = transcript.sources(instance).agent
    inputs = [prompt]
    if agent is not None:
        inputs.append(Section("Agent configuration", agent))
    if spec.prompt_template.strip():
        template = spec.prompt_template
        filled = templates.fill(template, {"prompt": prompt.text}, f"{SPEC}.prompt_template")
        shown = inputs if "prompt" not in templates.variables_of(template) else inputs[1:]
        if shown:
            filled = f"{filled}\n\n# Inputs\n{rubrics.render_sections(shown)}"
        text = f"{filled}\n\n{rubrics.format_rules(content_type, ontology)}"
    else:
        text = rubrics.generation_prompt(
            GENERIC_FOCUS, inputs, content_type=content_type, ontology=ontology
        )
    config = spec.model_config if spec.HasField("model_config") else None
    return await rubrics.generate(call, text, config=config, ontology=ontology, media=media)
