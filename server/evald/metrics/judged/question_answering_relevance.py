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
        definition="Question answering relevance: whether the response keeps to the question "
        "asked.",
        criteria=(
            (
                "Relevance",
                "Everything in the response bears on the question of the user instruction; it "
                "does not drift to unrelated topics. Only relevance is judged here, not "
                "correctness.",
            ),
        ),
        rubric=likert(
            "completely relevant",
            "mostly relevant: a little unrelated content",
            "somewhat relevant: a fair share of unrelated content",
            "mostly irrelevant: touches the question only briefly",
            "irrelevant: does not address the question",
        ),
        steps=(
            "Identify the question asked.",
            "Go through the response and mark any content that does not bear on the question.",
            "Choose the rubric rating from how much of the response is relevant.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
