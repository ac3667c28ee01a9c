"""NeMo ``llm-judge``: a judge answers a Jinja2 prompt; a regex reads the score from the text."""

from __future__ import annotations

import re

from evald import offload
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judges.config import SamplingDefaults
from evald.judging import engine
from evald.judging.verdicts import OPEN
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render_off_loop

ONE_CALL = SamplingDefaults(count=1, flip=False)
"""NeMo asks its judge once per row; evald's Vertex-style default of 4 samples does not apply."""


class LlmJudge(Metric):
    """The first group of ``score_regex`` in the judge's answer, as a number."""

    name = "nemo/llm-judge"
    family = "nemo"
    definition = (
        "`prompt_template` (Jinja2 over the instance) is sent to the configured judge (the "
        "request's `autorater_config` applies), with `system_instruction` if given, and no "
        "output schema. The score is the first capture group of the first match of "
        "`score_regex` (Python `re.search`) in the answer, read as a number. One judge call per "
        "row, as NeMo makes; with `autorater_config.sampling_count` set, that many and the mean "
        "over the answers. An answer without a match is an error."
    )
    parameters = (
        Parameter("prompt_template", "string", "Jinja2 template of the judge prompt"),
        Parameter(
            "score_regex", "string", "regex whose first group is the score", r"(\d+(?:\.\d+)?)"
        ),
        Parameter("system_instruction", "string", "system instruction for the judge", ""),
    )
    score_range = "whatever the prompt asks for"
    needs_judge = True

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:

        template = params.values.get("prompt_template")
        if not isinstance(template, str) or not template.strip():
            raise InvalidArgument(params.field("prompt_template"), "a prompt template is required")
        try:
            pattern = re.compile(params.string("score_regex"))
        except re.error as exc:
            raise InvalidArgument(params.field("score_regex"), f"invalid regex: {exc}") from None
        if pattern.groups < 1:
            raise InvalidArgument(params.field("score_regex"), "needs a capture group")
        prompt = await render_off_loop(
            template, instance.variables(), params.field("prompt_template")
        )
        system = params.string("system_instruction") or None
        outcome = await engine.pointwise(
            call, prompt, system, OPEN, strict=False, defaults=ONE_CALL
        )
        # The caller's regex may backtrack for ever on some answer: searched off the loop,
        # where the caller's deadline stops it.
        scores: list[float | None] = await offload.call(_scores, pattern, outcome.raw)
        if not scores or any(s is None for s in scores):
            raise InvalidArgument(
                params.field("score_regex"), "no score found in the judge's answer"
            )
        values = [s for s in scores if s is not None]
        return Outcome(sum(values) / len(values), outcome.raw[0][:2000])


def _scores(pattern: re.Pattern[str], answers: list[str]) -> list[float | None]:
    """The score ``pattern``'s first group finds in each answer (None: none)."""
    scores: list[float | None] = []
    for text in answers:
        match = pattern.search(text)
        try:
            scores.append(float(match.group(1)) if match else None)
        except (TypeError, ValueError):
            scores.append(None)
    return scores
