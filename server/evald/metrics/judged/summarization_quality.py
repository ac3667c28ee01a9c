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
            ("Fluency", "The summary is well organised and easy to read."),
        ),
        rubric=likert(
            "very good: follows the instruction and is grounded, concise and fluent, with "
            "nothing to improve",
            "good: follows the instruction and is grounded, concise and fluent, with small room "
            "for improvement",
            "ok: mostly follows the instruction and is grounded, but is not concise or not fluent",
            "bad: grounded, but does not follow the instruction",
            "very bad: not grounded: it states something the context does not",
        ),
        steps=(
            "Check groundedness: look for anything in the summary that the context does not "
            "support. If there is any, the rating is 1.",
            "Check instruction following, limits included. If the summary does not follow the "
            "instruction, the rating is 2.",
            "Check conciseness and fluency.",
            "Choose the highest rubric rating whose conditions all hold.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("instruction", "context"),
    )
