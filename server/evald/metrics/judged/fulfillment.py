"""``fulfillment_input``: How completely the response follows the instruction (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class Fulfillment(DefinedJudgeMetric):
    """How completely the response follows the instruction (1-5)."""

    input_field = "fulfillment_input"
    result_field = "fulfillment_result"
    prompt = JudgePrompt(
        title="instruction fulfillment",
        criterion="The response does everything the instruction asks, respecting every "
        "requirement and constraint it states.",
        rubric=likert(
            "complete fulfillment: every requirement is met",
            "good fulfillment: the main request is met, a minor requirement is missed",
            "some fulfillment: the main request is met, several requirements are missed",
            "poor fulfillment: only a small part of the request is met",
            "no fulfillment: the response does not address the instruction",
        ),
        scale=LIKERT,
        required=("instruction",),
    )
