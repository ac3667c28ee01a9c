"""``rubric_based_instruction_following_input``: rubrics for the instruction, then verdicts.

``json_instance`` is a JSON object with the instruction under ``prompt`` (or ``instruction``) and
the response under ``response`` (or ``prediction``). The judge writes yes/no rubrics that check
the instruction's explicit requirements (see :data:`RECIPE`), then answers each one for the
response. The result's ``score`` is the share of rubrics met (0..1, every rubric counts the same)
and ``rubric_critique_results`` lists each rubric's text with its verdict, in order.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judging import rubrics, templates
from evald.metrics.base import Metric

RECIPE = rubrics.Recipe(
    title="instruction following",
    focus="Whether the response follows the instructions in the user prompt: every explicit "
    "requirement and constraint (task, format, length, language, style, content to include or "
    "avoid, number of items, ...), each as its own rubric. Check only what the prompt asks "
    "for; general quality, correctness or helpfulness beyond the instructions is not checked.",
    note="Judge only whether the response does what the rubric says; ignore its quality otherwise.",
)
"""What the instruction-following rubrics check (shared with ``instruction_following_v*``)."""

PROMPT_KEYS = ("prompt", "instruction")
RESPONSE_KEYS = ("response", "prediction")


def _pick(values: dict[str, str], keys: tuple[str, ...], path: str) -> str:
    for key in keys:
        if values.get(key, "").strip():
            return values[key]
    raise InvalidArgument(
        path, f"the JSON object needs a non-empty {keys[0]!r} (or {keys[1]!r}) string"
    )


class RubricBasedInstructionFollowing(Metric):
    """Share of generated instruction-following rubrics the response meets (0..1)."""

    input_field = "rubric_based_instruction_following_input"
    result_field = "rubric_based_instruction_following_result"

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        instance = metric_input.instance
        where = f"{path}.instance.json_instance"
        if not metric_input.HasField("instance") or instance.WhichOneof("instance") is None:
            raise InvalidArgument(where, "a JSON object with 'prompt' and 'response' is required")
        values = templates.json_variables(instance.json_instance, where)
        prompt = _pick(values, PROMPT_KEYS, where)
        response = _pick(values, RESPONSE_KEYS, where)
        task = [rubrics.Section("User prompt", prompt)]
        judged = await RECIPE.judge(call, task, [*task, rubrics.Section("Response", response)])
        result: Message = api.messages.RubricBasedInstructionFollowingResult(score=judged.score)
        out: Any = result
        for rubric, verdict in zip(judged.rubrics, judged.verdicts, strict=True):
            # Generated rubrics carry no importance, so the score is the plain share met.
            out.rubric_critique_results.add(
                rubric=rubrics.rubric_text(rubric), verdict=verdict.passed
            )
        return result
