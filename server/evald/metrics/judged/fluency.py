"""``fluency_input``: Language quality of the response alone (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class Fluency(DefinedJudgeMetric):
    """Language quality of the response alone (1-5)."""

    input_field = "fluency_input"
    result_field = "fluency_result"
    prompt = JudgePrompt(
        title="fluency",
        definition="Fluency: how well the response is written as language: grammar, word choice "
        "and how smoothly it reads.",
        criteria=(
            (
                "Fluency",
                "The response is grammatical and correctly punctuated, picks precise and fitting "
                "words, varies its sentences and keeps one tone, so that it reads naturally and "
                "without effort.",
            ),
        ),
        rubric=likert(
            "completely fluent: no grammar or usage errors, precise wording, reads naturally "
            "throughout",
            "mostly fluent: at most a few small slips; clear wording, sentences connect well",
            "somewhat fluent: errors or clumsy phrasing slow the reader down, though the meaning "
            "stays clear",
            "mostly inarticulate: frequent errors and awkward sentences make the text hard to "
            "follow",
            "inarticulate: so many errors that parts of the text cannot be understood",
        ),
        steps=(
            "Check grammar, spelling, punctuation and agreement, noting each error.",
            "Check word choice: are the words accurate and suited to the context, without "
            "needless repetition?",
            "Check flow: do the sentences vary and connect, so that the whole reads smoothly?",
            "Choose the rubric rating that matches what you found.",
        ),
        scale=LIKERT,
    )
