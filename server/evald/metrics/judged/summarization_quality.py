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
        definition="Summarization quality: how well the response summarises the context as the "
        "user instruction asks. A summary is shorter than the context and holds nothing the "
        "context does not; limits the instruction sets (a number of words or sentences, a "
        "focus, a format) count.",
        criteria=(
            (
                "Instruction following",
                "The summary does what the summarization instruction asks, limits included.",
            ),
            (
                "Groundedness",
                "Everything in the summary comes from the context; nothing is added from "
                "outside it.",
            ),
            (
                "Conciseness",
                "The summary keeps the key information of the context, without padding and "
                "without cutting so much that important points are lost.",
            ),
            ("Fluency", "The summary reads easily: clear sentences in a sensible order."),
        ),
        rubric=likert(
            "very good: meets every criterion (does what the instruction asks, stays within the "
            "context, concise, reads well) with nothing to improve",
            "good: meets every criterion, with small room for improvement",
            "ok: stays within the context and broadly does what the instruction asks, but is "
            "wordy, leaves out key points, or reads poorly",
            "bad: stays within the context, but does not do what the instruction asks",
            "very bad: states something the context does not support",
        ),
        steps=(
            "Check groundedness: look for anything in the summary that the context does not "
            "support. If there is any, the rating is 1.",
            "Check instruction following, limits included. If the summary does not do what the "
            "instruction asks, the rating is 2.",
            "Otherwise check conciseness and fluency: 3 if the summary falls short on either, 4 "
            "or 5 if it meets both (5 only with nothing left to improve).",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction", "context"),
    )
