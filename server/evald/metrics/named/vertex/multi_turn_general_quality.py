"""``multi_turn_general_quality_v1`` (also ``multi_turn_general_quality_v2``): Rubric-based quality
of the latest turn of a conversation."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import CONVERSATION, RubricNamed

MULTI_TURN_GENERAL_QUALITY = Recipe(
    title="multi-turn general quality",
    focus="The quality of the model's latest response as the next turn of this conversation: "
    "it answers the latest user message; it keeps following every instruction given earlier "
    "that still applies; it is consistent with earlier turns (no contradictions, no needless "
    "repetition) and uses information from them correctly; and it is correct, relevant and "
    "clearly written.",
)


class MultiTurnGeneralQuality(RubricNamed):
    """Rubric-based quality of the latest turn of a conversation."""

    name = "multi_turn_general_quality_v1"
    aliases = ("multi_turn_general_quality_v2",)
    definition = (
        "Rubric-based quality of the model's latest turn: rubrics from the conversation "
        "(`prompt` as several contents, role-labelled) on answering the latest message, "
        "following earlier instructions, consistency with earlier turns, correctness, clarity. "
        "Score: importance-weighted share of rubrics met, 0..1. Reads prompt, response "
        "(required), other_data.context."
    )
    recipe = MULTI_TURN_GENERAL_QUALITY
    reads = ("prompt", "context", "response")
    generation_reads = ("prompt", "context")
    required = (("prompt",), ("response",))
    labels = (("prompt", CONVERSATION),)
