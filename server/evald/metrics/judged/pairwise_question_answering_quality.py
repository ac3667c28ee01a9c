"""``pairwise_question_answering_quality_input``: Which of two answers is better (A = baseline, B =
candidate)."""

from __future__ import annotations

from evald.metrics.judged.defined import DefinedJudgeMetric
from evald.metrics.judged.question_answering_quality import QuestionAnsweringQuality


class PairwiseQuestionAnsweringQuality(DefinedJudgeMetric):
    """Which of two answers is better (A = baseline, B = candidate)."""

    input_field = "pairwise_question_answering_quality_input"
    result_field = "pairwise_question_answering_quality_result"
    prompt = QuestionAnsweringQuality.prompt.pairwise(required=("instruction", "context"))
