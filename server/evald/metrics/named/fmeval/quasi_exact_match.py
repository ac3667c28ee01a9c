"""``fmeval/quasi_exact_match``: 1 when the normalised response equals a normalised target."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text import quac


class QuasiExactMatch(BestOverTargets):
    """1 when the normalised response equals a normalised target."""

    name = "fmeval/quasi_exact_match"
    definition = (
        "1 when the response and some target (reference split on `<OR>`) are equal after "
        "stripping surrounding whitespace and FMEval's normalisation: lowercase, remove ASCII "
        "punctuation (`string.punctuation`), split on the space character only, drop empty "
        "words and the words a/an/the, join with one space. A tab, newline or non-breaking "
        "space stays inside its word, so `the\\ncat` keeps its article. Else 0."
    )

    @staticmethod
    def compare(output: str, target: str) -> float:
        return quac.quasi_exact_match(output, target)
