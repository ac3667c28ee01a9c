"""``summarization_helpfulness_input``: How useful the summary is to the reader in place of the
context (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class SummarizationHelpfulness(DefinedJudgeMetric):
    """How useful the summary is to the reader in place of the context (1-5)."""

    input_field = "summarization_helpfulness_input"
    result_field = "summarization_helpfulness_result"
    prompt = JudgePrompt(
        title="summarization helpfulness",
        definition="Summarization helpfulness: how well the response serves a reader who reads "
        "it instead of the context.",
        criteria=(
            (
                "Helpfulness",
                "A reader who reads only the response gets the information from the context "
                "that they need (as the instruction describes, when one is given), without "
                "going back to the context.",
            ),
        ),
        rubric=likert(
            "very helpful: could fully replace the context for this reader",
            "helpful: replaces the context, with minor gaps",
            "somewhat helpful: useful, but the reader would still need the context",
            "somewhat unhelpful: gives little of what the reader needs",
            "unhelpful: gives none of what the reader needs",
        ),
        steps=(
            "Work out what a reader needs from the context, using the instruction when one is "
            "given.",
            "Check which of those needs the response meets, and whether anything in it would "
            "mislead.",
            "Choose the rubric rating that matches what you found.",
        ),
        scale=LIKERT,
        has_reference_option=True,
        required=("context",),
        optional=("instruction",),
    )
