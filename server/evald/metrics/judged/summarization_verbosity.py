"""``summarization_verbosity_input``: Length of the summary relative to what it needs to say (-2 too
terse .. 2 too wordy)."""

from __future__ import annotations

from evald.judging.verdicts import VERBOSITY
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt


class SummarizationVerbosity(DefinedJudgeMetric):
    """Length of the summary relative to what it needs to say (-2 too terse .. 2 too wordy)."""

    input_field = "summarization_verbosity_input"
    result_field = "summarization_verbosity_result"
    prompt = JudgePrompt(
        title="summarization verbosity",
        criterion="Whether the response's length fits what it needs to convey from the "
        "context: neither leaving out needed content for brevity nor padding with repetition "
        "or unneeded detail.",
        rubric=(
            ("2", "far too verbose: heavy repetition or much unneeded detail"),
            ("1", "somewhat verbose: some unneeded detail"),
            ("0", "just right: concise and complete"),
            ("-1", "somewhat terse: leaves out some needed content"),
            ("-2", "far too terse: leaves out most needed content"),
        ),
        scale=VERBOSITY,
        has_reference_option=True,
        required=("context",),
        optional=("instruction",),
    )
