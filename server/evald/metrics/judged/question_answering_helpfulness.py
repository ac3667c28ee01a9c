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
        criterion="The response gives the asker what they need: it resolves their question, "
        "with useful detail and no confusing or misleading content.",
        rubric=likert(
            "very helpful: fully resolves the need",
            "helpful: resolves the need with minor gaps",
            "somewhat helpful: partly resolves the need",
            "somewhat unhelpful: of little use",
            "unhelpful: of no use, or misleading",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
