"""``instruction_following_v1`` (also ``instruction_following_v2``): Rubric-based instruction
following (the rubrics of the legacy rubric-based input)."""

from __future__ import annotations

from evald.metrics.judged import instruction_following
from evald.metrics.named.vertex.base import RubricNamed


class InstructionFollowing(RubricNamed):
    """Rubric-based instruction following (the rubrics of the legacy rubric-based input)."""

    name = "instruction_following_v1"
    aliases = ("instruction_following_v2",)
    definition = (
        "Rubric-based instruction following: one rubric per explicit requirement or constraint "
        "of the prompt (format, length, language, content to include or avoid, ...) and rubrics "
        "on the accuracy of the information it asks for (the correct, specific answer where one "
        "can be checked), then a verdict on each. Score: importance-weighted share of rubrics "
        "met, 0..1. Reads prompt, response (required)."
    )
    recipe = instruction_following.RECIPE
    reads = ("prompt", "response")
    generation_reads = ("prompt",)
    required = (("prompt",), ("response",))
