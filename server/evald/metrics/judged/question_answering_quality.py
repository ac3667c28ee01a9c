"""``question_answering_quality_input``: Overall quality of an answer to the instruction's question
(1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class QuestionAnsweringQuality(DefinedJudgeMetric):
    """Overall quality of an answer to the instruction's question (1-5)."""

    input_field = "question_answering_quality_input"
    result_field = "question_answering_quality_result"
    prompt = JudgePrompt(
        title="question answering quality",
        definition="Question answering quality: how well the response answers the question of "
        "the user instruction, given the context.",
        criteria=(
            (
                "Instruction following",
                "The answer does what the instruction asks, including any requirements on form "
                "or length.",
            ),
            (
                "Groundedness",
                "The answer uses only information found in the context; it brings in no "
                "outside facts.",
            ),
            (
                "Completeness",
                "Nothing the question asks for is left unanswered, and the answer gives the "
                "detail needed to be useful.",
            ),
            ("Fluency", "The answer reads easily: clear sentences in a sensible order."),
        ),
        rubric=likert(
            "very good: meets every criterion: does what the instruction asks, stays within the "
            "context, answers the whole question and reads well",
            "good: does what the instruction asks, stays within the context and answers the "
            "whole question, but reads less well",
            "ok: broadly does what the instruction asks and stays within the context, but "
            "answers only part of the question and reads less well",
            "bad: falls short of the instruction, leaves the question partly unanswered, or "
            "brings in something the context does not support",
            "very bad: ignores the instruction, answers wrongly and goes beyond the context",
        ),
        steps=(
            "Identify the question and any requirements the instruction sets.",
            "Check each statement of the answer against the context.",
            "Check whether the answer covers everything the question asks.",
            "Check how well the answer reads.",
            "Choose the rating whose description fits. A failed criterion caps the rating at "
            "the level that names that failure.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction", "context"),
    )
