"""``summarization_quality_input``: Overall quality of a summary of the context (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class SummarizationQuality(DefinedJudgeMetric):
    """Overall quality of a summary of the context (1-5)."""

    input_field = "summarization_quality_input"
    result_field = "summarization_quality_result"
    prompt = JudgePrompt(
        title="summarization quality",
        criterion="The response summarises the context faithfully (no invented facts), covers "
        "its key points, is concise, and follows the instruction if one is given. When a "
        "reference summary is given, use it as an example of a good summary.",
        rubric=likert(
            "very good: faithful, complete on key points, concise",
            "good: faithful, misses a minor point or is slightly wordy",
            "ok: mostly faithful, misses key points or has notable redundancy",
            "bad: unfaithful in places or misses most key points",
            "very bad: unfaithful or unrelated to the context",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("context",),
        optional=("instruction",),
    )
