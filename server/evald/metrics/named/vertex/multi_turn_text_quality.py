"""``multi_turn_text_quality_v1`` (also ``multi_turn_text_quality_v2``): Rubric-based writing
quality of the latest turn of a conversation."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import CONVERSATION, RubricNamed

MULTI_TURN_TEXT_QUALITY = Recipe(
    title="multi-turn text quality",
    focus="The writing quality of the model's latest response as the next turn of this "
    "conversation: fluent, coherent with the earlier turns, clear and concise (without "
    "repeating what was already said), in a tone and persona consistent with the "
    "conversation, and formatted as the conversation calls for.",
)


class MultiTurnTextQuality(RubricNamed):
    """Rubric-based writing quality of the latest turn of a conversation."""

    name = "multi_turn_text_quality_v1"
    aliases = ("multi_turn_text_quality_v2",)
    definition = (
        "Rubric-based writing quality of the model's latest turn in the conversation (`prompt` "
        "as several contents): fluency, coherence with earlier turns, concision, consistent tone "
        "and persona. Score: importance-weighted share of rubrics met, 0..1. Reads prompt, "
        "response (required), other_data.context."
    )
    recipe = MULTI_TURN_TEXT_QUALITY
    reads = ("prompt", "context", "response")
    generation_reads = ("prompt", "context")
    required = (("prompt",), ("response",))
    labels = (("prompt", CONVERSATION),)
