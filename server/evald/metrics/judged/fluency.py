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
        criterion="The text is grammatical, uses fitting words, and reads naturally, with "
        "smooth sentences and no awkward or broken phrasing.",
        rubric=likert(
            "completely fluent: no grammar errors, natural and varied wording",
            "mostly fluent: rare minor errors that do not hinder reading",
            "somewhat fluent: noticeable errors or awkward phrasing, still understandable",
            "mostly inarticulate: frequent errors that make reading hard",
            "inarticulate: hardly readable",
        ),
        scale=LIKERT,
    )
