"""``gecko_text2video_v1`` (also ``gecko_text2video_v2``): Text-to-video alignment (not served)."""

from __future__ import annotations

from evald.metrics.named.vertex.base import GeckoUnserved


class GeckoText2Video(GeckoUnserved):
    """Text-to-video alignment (not served)."""

    name = "gecko_text2video_v1"
    aliases = ("gecko_text2video_v2",)
    medium = "video"
    definition = (
        "Not served: Gecko text-to-video alignment needs a judge that reads the generated "
        "video; evald's judges read text only, so it answers UNIMPLEMENTED."
    )
