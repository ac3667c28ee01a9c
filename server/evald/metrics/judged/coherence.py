"""``coherence_input``: Logical organisation of the response alone (1-5)."""

from __future__ import annotations

from evald.judging.verdicts import LIKERT
from evald.metrics.judged.defined import DefinedJudgeMetric, JudgePrompt, likert


class Coherence(DefinedJudgeMetric):
    """Logical organisation of the response alone (1-5)."""

    input_field = "coherence_input"
    result_field = "coherence_result"
    prompt = JudgePrompt(
        title="coherence",
        definition="Coherence: how clearly the ideas of the response are organised and connected "
        "into one whole.",
        criteria=(
            (
                "Coherence",
                "The ideas come in a logical order, each part leads to the next with clear "
                "transitions, the text keeps to its main point, and references (pronouns, "
                '"this", "the former") are unambiguous.',
            ),
        ),
        rubric=likert(
            "completely coherent: a clear structure and a line of thought that never breaks",
            "mostly coherent: well organised, with a small gap or an abrupt transition",
            "somewhat coherent: the structure is recognisable, but several transitions are "
            "unclear or parts are loosely tied together",
            "mostly incoherent: weak organisation; the reader has to work out how the ideas relate",
            "incoherent: no discernible order; the ideas are disconnected or contradict each other",
        ),
        steps=(
            "Work out what the response sets out to convey, and to whom.",
            "Look at the overall structure: does the text have a clear beginning, development "
            "and end?",
            "Look at paragraphs and transitions: does each sentence connect to the one before "
            "and to the main point?",
            "Check that pronouns and other references clearly point to what they mean.",
            "Choose the rubric rating that matches what you found.",
        ),
        scale=LIKERT,
    )
