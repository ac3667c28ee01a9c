"""``gecko_text2video_v1`` (also ``gecko_text2video_v2``): Text-to-video alignment (not served)."""

from __future__ import annotations

from evald.metrics.named.vertex.base import GeckoUnserved


class GeckoText2Video(GeckoUnserved):
    """Text-to-video alignment (not served)."""

    name = "gecko_text2video_v1"
    aliases = ("gecko_text2video_v2",)
    medium = "video"
    definition = (
        "Not served: Gecko text-to-video alignment is Google's own question-generation and "
        "scoring recipe, which evald does not implement; it answers UNIMPLEMENTED. Judge "
        "generated videos with `llm_based_metric_spec` and a judge whose model reads them."
    )
