"""``groundedness_input``: Whether every claim of the response is supported by the context (1 yes, 0
no)."""

from __future__ import annotations

from evald.judging.verdicts import BINARY
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt


class Groundedness(DefinedJudgeMetric):
    """Whether every claim of the response is supported by the context (1 yes, 0 no)."""

    input_field = "groundedness_input"
    result_field = "groundedness_result"
    prompt = JudgePrompt(
        title="groundedness",
        definition="Groundedness: whether everything the response states comes from the context "
        "it was given.",
        criteria=(
            (
                "Groundedness",
                "Every piece of information in the response can be traced to the context; the "
                "response brings in no outside facts, even true ones.",
            ),
        ),
        rubric=(
            ("1", "grounded: every statement of the response is supported by the context"),
            ("0", "not grounded: the response, or part of it, cannot be traced to the context"),
        ),
        steps=(
            "Split the response into its statements.",
            "For each statement, find the part of the context that supports it.",
            "Rate 0 if any statement has no support in the context, otherwise 1.",
        ),
        scale=BINARY,
        required=("context",),
    )
