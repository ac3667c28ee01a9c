"""``pointwise_metric_spec``, ``pairwise_metric_spec`` and ``llm_based_metric_spec``: a judge
(see :mod:`evald.judges`) reads the filled template and gives a verdict.

Template variables (``{name}``): ``prompt``, ``response``, ``reference`` (those set) and every
``other_data`` key. Pairwise: the candidate is ``response`` (or the key named by
``candidate_response_field_name``), the baseline the ``other_data`` key named by
``baseline_response_field_name`` (default ``baseline_model_response``); the score is 1 when the
candidate wins, 0 when the baseline wins, 0.5 for a tie, and the explanation starts with the
choice. ``llm_based_metric_spec.judge_autorater_config`` replaces the request's
``autorater_config`` for that metric. ``result_parser_config.custom_code_parser_config`` runs
the caller's ``parse_results(responses: list[str]) -> dict`` on the judge's raw answers in the
sandbox. Rubric-based evaluation (``rubric_group_key``, rubric generation) is not served yet.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from evald.errors import InvalidArgument, Unimplemented
from evald.metric_api.base import Call, Outcome, SpecEvaluator
from evald.metric_api.instance import TEXT_FIELDS, InstanceView

PAIRWISE_SCORES = {"CANDIDATE": 1.0, "BASELINE": 0.0, "TIE": 0.5}
DEFAULT_BASELINE = "baseline_model_response"
PARSER = "parse_results"


def variables(instance: InstanceView) -> dict[str, str]:
    """Template variables of the instance: the set texts and the other_data entries."""
    values = dict(instance.other_data)
    for name in TEXT_FIELDS:
        text = instance.text(name)
        if text is not None:
            values[name] = text
    return values


def _template(spec: Any, path: str) -> str:
    if not spec.HasField("metric_prompt_template") or not spec.metric_prompt_template.strip():
        raise InvalidArgument(f"{path}.metric_prompt_template", "a prompt template is required")
    return str(spec.metric_prompt_template)


def _system(spec: Any) -> str | None:
    return spec.system_instruction if spec.HasField("system_instruction") else None


class LlmBasedSpecs(SpecEvaluator):
    """Judge-backed specs, through :mod:`evald.metrics.autorater.engine`."""

    spec_fields = ("pointwise_metric_spec", "pairwise_metric_spec", "llm_based_metric_spec")

    async def evaluate(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        from evald import judges

        context = judges.from_request(call.request)
        if which == "llm_based_metric_spec" and spec.HasField("judge_autorater_config"):
            context = dataclasses.replace(context, autorater_config=spec.judge_autorater_config)
        outer = judges.call.current()
        # Keep the transport's deadline and cache choice; only the autorater config is ours.
        context = dataclasses.replace(context, deadline=outer.deadline, use_cache=outer.use_cache)
        with judges.scope(context):
            if which == "pairwise_metric_spec":
                return await self._pairwise(spec, instance, path)
            if which == "llm_based_metric_spec":
                return await self._llm_based(spec, instance, call, path)
            return await self._pointwise(spec, instance, path)

    async def _pointwise(self, spec: Any, instance: InstanceView, path: str) -> Outcome:
        from evald.metrics.autorater import engine, templates
        from evald.metrics.autorater.verdicts import OPEN

        prompt = templates.fill(_template(spec, path), variables(instance), instance.path)
        outcome = await engine.pointwise(prompt, _system(spec), OPEN)
        assert outcome.score is not None  # strict mode: an unreadable answer raised
        return Outcome(outcome.score, outcome.explanation)

    async def _pairwise(self, spec: Any, instance: InstanceView, path: str) -> Outcome:
        from evald.metrics.autorater import engine, templates

        template = _template(spec, path)
        values = variables(instance)
        candidate = spec.candidate_response_field_name or "response"
        baseline = spec.baseline_response_field_name or DEFAULT_BASELINE
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

        outcome = await engine.pairwise(render, _system(spec))
        assert outcome.choice is not None
        return Outcome(
            PAIRWISE_SCORES[outcome.choice],
            f"pairwise_choice: {outcome.choice}. {outcome.explanation}",
        )

    async def _llm_based(self, spec: Any, instance: InstanceView, call: Call, path: str) -> Outcome:
        from evald.metrics.autorater import engine, templates
        from evald.metrics.autorater.verdicts import OPEN

        source = spec.WhichOneof("rubrics_source")
        if source is not None:
            raise Unimplemented(
                f"{path}.{source}: rubric-based LLM metrics (rubric groups, rubric generation) "
                "are not served by evald yet; use a template that asks for a score"
            )
        prompt = templates.fill(_template(spec, path), variables(instance), instance.path)
        parser = spec.result_parser_config
        if parser.WhichOneof("parser") != "custom_code_parser_config":
            outcome = await engine.pointwise(prompt, _system(spec), OPEN)
            assert outcome.score is not None
            return Outcome(outcome.score, outcome.explanation)
        code = parser.custom_code_parser_config.parsing_function
        field = f"{path}.result_parser_config.custom_code_parser_config.parsing_function"
        if not code.strip():
            raise InvalidArgument(field, f"the source of def {PARSER}(responses) is required")
        if not call.api.sandbox.enabled:  # before paying for a judge call
            from evald.errors import FailedPrecondition
            from evald.sandbox import DISABLED

            raise FailedPrecondition(DISABLED)
        raw = await engine.pointwise(prompt, _system(spec), OPEN, strict=False)
        result = await call.api.sandbox.run(code, raw.raw, function=PARSER, field=field)
        return Outcome(result.score, result.explanation)
