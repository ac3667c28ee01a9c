"""``text_quality_v1`` (also ``text_quality_v2``): Rubric-based writing quality."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import RubricNamed

TEXT_QUALITY = Recipe(
    title="text quality",
    focus="The quality of the response's writing for this prompt: fluent and grammatical, "
    "coherent with a logical flow, clear, concise (no padding or repetition), in a tone and "
    "register that fit the request, and formatted as the request calls for. Content is "
    "checked only where it affects how well the text communicates.",
)


class TextQuality(RubricNamed):
    """Rubric-based writing quality."""

    name = "text_quality_v1"
    aliases = ("text_quality_v2",)
    definition = (
        "Rubric-based writing quality: rubrics on fluency, grammar, coherence, clarity, "
        "concision, tone and formatting for the prompt, then a verdict on each. Score: "
        "importance-weighted share of rubrics met, 0..1. Reads prompt, response (required), "
        "other_data.context."
    )
    recipe = TEXT_QUALITY
    reads = ("prompt", "context", "response")
    generation_reads = ("prompt", "context")
    required = (("prompt",), ("response",))
