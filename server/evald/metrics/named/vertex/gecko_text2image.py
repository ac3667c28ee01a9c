"""``gecko_text2image_v1`` (also ``gecko_text2image_v2``): Text-to-image alignment (not served)."""

from __future__ import annotations

from evald.metrics.named.vertex.base import GeckoUnserved


class GeckoText2Image(GeckoUnserved):
    """Text-to-image alignment (not served)."""

    name = "gecko_text2image_v1"
    aliases = ("gecko_text2image_v2",)
    medium = "image"
    definition = (
        "Not served: Gecko text-to-image alignment needs a judge that reads the generated "
        "image; evald's judges read text only, so it answers UNIMPLEMENTED."
    )
