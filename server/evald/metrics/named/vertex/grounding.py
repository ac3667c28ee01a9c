"""``grounding_v1`` (also ``grounding_v2``): Share of the response's claims that the context
supports."""

from __future__ import annotations

from evald.metrics.named.vertex.base import ClaimsNamed


class Grounding(ClaimsNamed):
    """Share of the response's claims that the context supports."""

    name = "grounding_v1"
    aliases = ("grounding_v2",)
    definition = (
        "Claim-level grounding in `other_data.context`: the judge labels each sentence of the "
        "response supported / unsupported / contradicted / no_rad (no claim). Score: supported "
        "claims / claim-bearing sentences, 0..1 (1.0 when there is no claim); mean over "
        "samples. One rubric verdict per claim. Reads response, other_data.context (required), "
        "prompt."
    )
    task = (
        "Check whether the response is grounded in the source: every claim it makes must be "
        "backed by the source."
    )
    sources_in_order = ("context",)
    reads = ("prompt", "context", "response")
    required = (("response",), ("context",))
