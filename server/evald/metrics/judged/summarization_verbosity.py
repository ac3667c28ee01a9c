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
        definition="Summarization verbosity: whether the length of the response fits what it has "
        "to convey from the context.",
        criteria=(
            (
                "Verbosity",
                "The response gives the detail needed to convey the context (and to do what the "
                "instruction asks, when one is given) in as few words as that takes: no "
                "repetition, filler or needless detail, and nothing needed left out for "
                "brevity.",
            ),
        ),
        rubric=(
            (
                "2",
                "far too verbose: much longer than needed; repetition or needless detail buries "
                "the relevant information",
            ),
            (
                "1",
                "somewhat verbose: some needless words or repetition, though everything needed "
                "is there",
            ),
            ("0", "just right: complete and concise"),
            ("-1", "somewhat terse: the core is there, but some needed detail is missing"),
            ("-2", "far too terse: crucial information is missing"),
        ),
        steps=(
            "Check completeness: what needed information from the context is missing?",
            "Check conciseness: which words, sentences or details could go without losing meaning?",
            "Weigh the two and choose the rubric rating: positive when too long, negative when "
            "too short, 0 when balanced.",
        ),
        scale=VERBOSITY,
        has_reference_option=True,
        required=("context",),
        optional=("instruction",),
    )
