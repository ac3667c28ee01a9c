"""``general_quality_v1`` (also ``general_quality_v2``): Rubric-based overall quality of a
response."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import RubricNamed

GENERAL_QUALITY = Recipe(
    title="general quality",
    focus="The overall quality of a response to this prompt: it does everything the prompt asks "
    "(each explicit instruction and constraint), its content is correct, complete and relevant "
    "for what the prompt needs, it is well organised and clearly written, and its tone suits "
    "the request. When a context is given, the response must use it correctly.",
)


class GeneralQuality(RubricNamed):
    """Rubric-based overall quality of a response."""

    name = "general_quality_v1"
    aliases = ("general_quality_v2",)
    definition = (
        "Rubric-based overall quality. The judge writes 3-10 yes/no rubrics from the prompt (and "
        "`other_data.context`, `guidelines`): instructions, correctness, completeness, "
        "relevance, organisation, tone; then answers each for the response. Score: "
        "importance-weighted share of rubrics met, 0..1. Reads prompt, response (required), "
        "other_data.context."
    )
    recipe = GENERAL_QUALITY
    reads = ("prompt", "context", "response")
    generation_reads = ("prompt", "context")
    required = (("prompt",), ("response",))
