"""``rubric_based_instruction_following_input``: rubrics for the instruction, then verdicts.

``json_instance`` is a JSON object with the instruction under ``prompt`` (or ``instruction``) and
the response under ``response`` (or ``prediction``). The judge writes yes/no rubrics that check
the instruction's explicit requirements and the accuracy of the information it asks for (see
:data:`RECIPE`), each with an importance, then answers each one for the response. The result's
``score`` is the importance-weighted share of rubrics met (0..1, the rule of
:mod:`evald.judging.rubrics`) and ``rubric_critique_results`` lists each rubric's text with its
verdict, in order.
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
    focus="Whether the response does what the user prompt asks, and does it correctly.\n"
    "- Every explicit requirement and constraint (task, genre or format, length, language, "
    "style, content to include or avoid, number of items, ...) gets its own rubric, worded "
    'as close to the prompt as possible and keeping the prompt\'s polarity (a "do not" '
    'instruction stays a "does not" check).\n'
    "- Informational accuracy: the information the prompt asks for must be right. Where the "
    "task has a verifiable answer (a fact, a count, a calculation, a conversion, a "
    "transformation of text given in the prompt), a rubric checks for that correct, specific "
    "answer, not merely that an answer was given; where it asks for items of a kind (e.g. "
    "five rivers in Europe), a rubric checks that every item really is of that kind.\n"
    "- Each rubric stands on its own: no pronouns or references to other rubrics.\n"
    "Helpfulness or polish beyond what the prompt asks for is not checked.",
    note="Judge whether the response does what each rubric says. Where a rubric asks for "
    "correct information, check the response's facts, numbers and results, and answer no "
    "when they are wrong. Ignore qualities no rubric asks about.",
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
            # The result message has no importance: the score above is weighted by it.
            out.rubric_critique_results.add(
                rubric=rubrics.rubric_text(rubric), verdict=verdict.passed
            )
        return result
