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
        definition="Instruction fulfillment: how completely the response does what the user "
        "instruction asks.",
        criteria=(
            (
                "Instruction following",
                "The response grasps the intent of the instruction and meets every requirement "
                "it states: the task, and any format, length, tone or content to include or "
                "leave out.",
            ),
        ),
        rubric=likert(
            "complete fulfillment: nothing the instruction asks for is missing or done differently",
            "good fulfillment: the request is met, with only a very minor detail missing or "
            "slightly off",
            "some fulfillment: the main request is met, but some smaller parts or requirements "
            "are ignored",
            "poor fulfillment: key requirements or large parts of the request are missing",
            "no fulfillment: what matters most in the instruction is not done",
        ),
        steps=(
            "List what the instruction asks for: its main task and each explicit requirement.",
            "Check whether the response addresses the intent of the instruction.",
            "Check each requirement against the response.",
            "Choose the rubric rating that matches what you found.",
        ),
        scale=LIKERT,
        required=("instruction",),
    )
