"""``question_answering_relevance_input``: How much of the answer is on the question's topic
(1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class QuestionAnsweringRelevance(DefinedJudgeMetric):
    """How much of the answer is on the question's topic (1-5)."""

    input_field = "question_answering_relevance_input"
    result_field = "question_answering_relevance_result"
    prompt = JudgePrompt(
        title="question answering relevance",
        criterion="Everything in the response bears on the question asked; it does not drift "
        "to unrelated topics. Correctness is not judged here, only relevance.",
        rubric=likert(
            "completely relevant",
            "mostly relevant: a little unrelated content",
            "somewhat relevant: a fair share of unrelated content",
            "mostly irrelevant: touches the question only briefly",
            "irrelevant: does not address the question",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
