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
        criterion="The ideas are logically organised and connected: each part follows from "
        "the previous one, with clear transitions and no contradictions or jumps.",
        rubric=likert(
            "completely coherent: a clear, consistent line of thought throughout",
            "mostly coherent: minor gaps in flow",
            "somewhat coherent: several unclear transitions or loosely related parts",
            "mostly incoherent: ideas are hard to connect",
            "incoherent: no discernible logical structure",
        ),
        scale=LIKERT,
    )
