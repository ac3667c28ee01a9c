"""``pairwise_summarization_quality_input``: Which of two summaries is better (A = baseline, B =
candidate)."""

from __future__ import annotations

from evald.metrics.judged.defined import DefinedJudgeMetric
from evald.metrics.judged.summarization_quality import SummarizationQuality


class PairwiseSummarizationQuality(DefinedJudgeMetric):
    """Which of two summaries is better (A = baseline, B = candidate)."""

    input_field = "pairwise_summarization_quality_input"
    result_field = "pairwise_summarization_quality_result"
    prompt = SummarizationQuality.prompt.pairwise(required=("instruction", "context"))
