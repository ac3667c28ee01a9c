"""``fmeval/quasi_exact_match``: 1 when the normalised response equals a normalised target."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text.squad import normalize


class QuasiExactMatch(BestOverTargets):
    """1 when the normalised response equals a normalised target."""

    name = "fmeval/quasi_exact_match"
    definition = (
        "1 when the response and some target are equal after FMEval's normalisation: "
        "lowercase, remove punctuation, remove the articles a/an/the, collapse whitespace."
    )

    @staticmethod
    def compare(output: str, target: str) -> float:
        return float(normalize(output) == normalize(target))
