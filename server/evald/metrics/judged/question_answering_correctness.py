"""``question_answering_correctness_input``: Whether the answer is correct (1) or not (0); against
the reference when used."""

from __future__ import annotations

from evald.judging.verdicts import BINARY
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt


class QuestionAnsweringCorrectness(DefinedJudgeMetric):
    """Whether the answer is correct (1) or not (0); against the reference when used."""

    input_field = "question_answering_correctness_input"
    result_field = "question_answering_correctness_result"
    prompt = JudgePrompt(
        title="question answering correctness",
        definition="Question answering correctness: whether the response answers the question "
        "correctly.",
        criteria=(
            (
                "Correctness",
                "The answer the response gives is factually correct. When a reference is given, "
                "the response is correct if it agrees with the reference; otherwise judge from "
                "the context, when given, and established knowledge.",
            ),
        ),
        rubric=(("1", "correct"), ("0", "incorrect")),
        steps=(
            "Find the answer the response gives to the question.",
            "Compare it with the reference when one is given, otherwise with the context and "
            "established knowledge.",
            "Rate 1 if the answer is correct, otherwise 0.",
        ),
        scale=BINARY,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
