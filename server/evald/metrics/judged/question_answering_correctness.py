"""``question_answering_correctness_input``: Whether the answer is correct (1) or not (0); against
the reference when used."""

from __future__ import annotations

from evald.judging.verdicts import BINARY
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt


class QuestionAnsweringCorrectness(DefinedJudgeMetric):
    """Whether the answer is correct (1) or not (0); against the reference when used."""

    input_field = "question_answering_correctness_input"
    result_field = "question_answering_correctness_result"
    prompt = JudgePrompt(
        title="question answering correctness",
        criterion="The response's answer to the question is factually correct. When a "
        "reference answer is given, the response is correct if it agrees with it; otherwise "
        "judge from the context (if given) and established knowledge.",
        rubric=(("1", "correct"), ("0", "incorrect")),
        scale=BINARY,
        has_reference_option=True,
        required=("instruction",),
        optional=("context",),
    )
