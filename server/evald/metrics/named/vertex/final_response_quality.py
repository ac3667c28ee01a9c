"""``final_response_quality_v1`` (also ``final_response_quality_v2``): Rubric-based quality of an
agent's final response (reference used when given)."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import FINAL_RESPONSE, RubricNamed

FINAL_RESPONSE_QUALITY = Recipe(
    title="final response quality",
    focus="The quality of the agent's final response to the user's request: it fully resolves "
    "the request, its facts agree with what the agent's tools returned (no invented results "
    "or actions), it agrees with the reference answer on the key points when one is given, it "
    "says plainly what could not be done, and it is clear and well organised.",
)


class FinalResponseQuality(RubricNamed):
    """Rubric-based quality of an agent's final response (reference used when given)."""

    name = "final_response_quality_v1"
    aliases = ("final_response_quality_v2",)
    definition = (
        "Rubric-based quality of an agent's final response: resolves the request, agrees with "
        "the tool results in the trace and (when given) with the reference on key points, honest "
        "about what was not done, clear. Score: importance-weighted share of rubrics met, 0..1. "
        "Reads prompt, response (required), reference, agent_eval_data / agent_data, "
        "other_data.context."
    )
    recipe = FINAL_RESPONSE_QUALITY
    reads = ("prompt", "context", "agent", "reference", "response")
    generation_reads = ("prompt", "context", "agent", "reference")
    required = (("prompt",), ("response",))
    labels = (("response", FINAL_RESPONSE),)
