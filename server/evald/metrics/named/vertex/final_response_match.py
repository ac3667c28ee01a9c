"""``final_response_match_v2`` (also ``final_response_match_v3``): Whether the agent's final
response gives the reference answer (1) or not (0)."""

from __future__ import annotations

from evald.metrics.named.vertex.base import FINAL_RESPONSE, BinaryNamed


class FinalResponseMatch(BinaryNamed):
    """Whether the agent's final response gives the reference answer (1) or not (0)."""

    name = "final_response_match_v2"
    aliases = ("final_response_match_v3",)
    definition = (
        "Binary match of an agent's final response with the reference: 1 when it gives the "
        "same answer (same key facts, numbers, entities, conclusions; wording, format and "
        "harmless extra detail do not matter), else 0. Reads response, reference (required), "
        "prompt."
    )
    title = "final response match"
    criterion = (
        "The final response gives the same answer as the reference answer: the same key "
        "facts, numbers, entities and conclusions. Wording, formatting and harmless extra "
        "detail do not matter; a missing, different or contradicting key point does."
    )
    meanings = (
        "match: same answer as the reference",
        "no match: a key point differs or is missing",
    )
    reads = ("prompt", "reference", "response")
    required = (("response",), ("reference",))
    labels = (("response", FINAL_RESPONSE),)
