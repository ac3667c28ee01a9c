"""``final_response_reference_free_v1`` (also ``final_response_reference_free_v2``): Rubric-based
quality of an agent's final response, without a reference."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import FINAL_RESPONSE, RubricNamed

FINAL_RESPONSE_REFERENCE_FREE = Recipe(
    title="final response quality (reference-free)",
    focus="The quality of the agent's final response to the user's request, without any "
    "reference answer: it fully resolves the request, it is consistent with what the agent's "
    "tools returned (no invented results or actions), it says plainly what could not be done, "
    "and it is clear and well organised.",
)


class FinalResponseReferenceFree(RubricNamed):
    """Rubric-based quality of an agent's final response, without a reference."""

    name = "final_response_reference_free_v1"
    aliases = ("final_response_reference_free_v2",)
    definition = (
        "Rubric-based quality of an agent's final response with no reference: resolves the "
        "request, consistent with the tool results in the trace, honest about what was not done, "
        "clear. Score: importance-weighted share of rubrics met, 0..1. Reads prompt, response "
        "(required), agent_eval_data / agent_data, other_data.context; never the reference."
    )
    recipe = FINAL_RESPONSE_REFERENCE_FREE
    reads = ("prompt", "context", "agent", "response")
    generation_reads = ("prompt", "context", "agent")
    required = (("prompt",), ("response",))
    labels = (("response", FINAL_RESPONSE),)
