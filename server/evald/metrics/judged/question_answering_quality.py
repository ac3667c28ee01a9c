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
            ("Completeness", "The answer fully answers the question, with enough detail."),
            ("Fluency", "The answer is well organised and easy to read."),
        ),
        rubric=likert(
            "very good: follows the instruction and is grounded, complete and fluent",
            "good: follows the instruction and is grounded and complete, but could read better",
            "ok: mostly follows the instruction and is grounded, but answers the question only "
            "in part and could read better",
            "bad: does not follow the instruction well, or is incomplete, or is not fully grounded",
            "very bad: does not follow the instruction, is wrong and is not grounded",
        ),
        steps=(
            "Identify the question and any requirements the instruction sets.",
            "Check each statement of the answer against the context.",
            "Check whether the answer covers everything the question asks.",
            "Check how well the answer reads.",
            "Go through the rubric from the lowest rating up and choose the highest one whose "
            "conditions all hold.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction", "context"),
    )
