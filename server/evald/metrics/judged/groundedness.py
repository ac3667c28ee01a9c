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
        criterion="Every factual claim in the response is supported by the context; the "
        "response adds no information that the context does not contain or imply.",
        rubric=(
            ("1", "grounded: all claims are supported by the context"),
            ("0", "ungrounded: at least one claim is not supported by the context"),
        ),
        scale=BINARY,
        required=("context",),
    )
