"""``fmeval/precision_over_words``: Share of the response's normalised words found in the target."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text.quac import word_scores


class PrecisionOverWords(BestOverTargets):
    """Share of the response's normalised words found in the target."""

    name = "fmeval/precision_over_words"
    definition = (
        "Shared words / response words, over the word sets of `fmeval/f1_over_words`; 0 when "
        "either side has no words. Best over the targets."
    )
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_scores(output, target)[0]
