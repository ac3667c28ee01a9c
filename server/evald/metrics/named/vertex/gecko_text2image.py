"""``gecko_text2image_v1`` (also ``gecko_text2image_v2``): Text-to-image alignment (not served)."""

from __future__ import annotations

from evald.metrics.named.vertex.base import GeckoUnserved


class GeckoText2Image(GeckoUnserved):
    """Text-to-image alignment (not served)."""

    name = "gecko_text2image_v1"
    aliases = ("gecko_text2image_v2",)
    medium = "image"
    definition = (
        "Not served: Gecko text-to-image alignment is Google's own question-generation and "
        "scoring recipe, which evald does not implement; it answers UNIMPLEMENTED. Judge "
        "generated images with `llm_based_metric_spec` and a judge whose model reads them."
    )
