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
        criterion="The response answers the question correctly, completely and concisely, "
        "using the context when one is given. When a reference answer is given, judge "
        "correctness against it.",
        rubric=likert(
            "very good: correct, complete, concise",
            "good: correct with a minor omission or some extra text",
            "ok: partly correct or incomplete",
            "bad: mostly incorrect or off topic",
            "very bad: incorrect or no answer",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
