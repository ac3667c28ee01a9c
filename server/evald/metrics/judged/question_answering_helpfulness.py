"""``question_answering_helpfulness_input``: How useful the answer is to the person asking (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class QuestionAnsweringHelpfulness(DefinedJudgeMetric):
    """How useful the answer is to the person asking (1-5)."""

    input_field = "question_answering_helpfulness_input"
    result_field = "question_answering_helpfulness_result"
    prompt = JudgePrompt(
        title="question answering helpfulness",
        definition="Question answering helpfulness: how much the response helps the person who "
        "asked.",
        criteria=(
            (
                "Helpfulness",
                "The response gives the asker what they need: it resolves the question with "
                "useful detail and contains nothing confusing or misleading.",
            ),
        ),
        rubric=likert(
            "very helpful: fully resolves the need",
            "helpful: resolves the need, with minor gaps",
            "somewhat helpful: partly resolves the need",
            "somewhat unhelpful: of little use",
            "unhelpful: of no use, or misleading",
        ),
        steps=(
            "Work out what the asker needs from the question (and the context, when given).",
            "Check how far the response meets that need, and whether anything in it confuses "
            "or misleads.",
            "Choose the rubric rating that matches what you found.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
