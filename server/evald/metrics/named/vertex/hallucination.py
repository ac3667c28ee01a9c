"""``hallucination_v1`` (also ``hallucination_v2``): Share of the response's sentences free of
hallucination (supported by the source)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from evald.metrics.named.vertex.base import ClaimsNamed, Labelled


class Hallucination(ClaimsNamed):
    """Share of the response's sentences free of hallucination (supported by the source)."""

    name = "hallucination_v1"
    aliases = ("hallucination_v2",)
    definition = (
        "Sentence-level hallucination check against `other_data.context` (else the prompt): "
        "each sentence labelled supported / unsupported / contradicted / no_rad. Score: "
        "supported / claim-bearing sentences, 0..1 (1 = no hallucination; 1.0 with no claim); "
        "mean over samples. The explanation is the JSON list of {sentence, label, rationale}. "
        "Reads response (required), other_data.context or prompt (one required)."
    )
    task = (
        "Find hallucinations in the response: statements not backed by, or contradicting, the "
        "source."
    )
    sources_in_order = ("context", "prompt")
    reads = ("prompt", "context", "response")
    required = (("response",), ("context", "prompt"))

    def explain(self, labelled: Sequence[Labelled]) -> str:
        """The labelled sentences as a JSON list (the shape the SDK's report renders)."""
        return json.dumps(
            [
                {"sentence": s.sentence, "label": s.label, "rationale": s.rationale}
                for s in labelled
            ],
            ensure_ascii=False,
        )
