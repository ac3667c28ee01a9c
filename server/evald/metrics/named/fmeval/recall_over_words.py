"""``fmeval/recall_over_words``: Share of the target's normalised words found in the response."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text.squad import word_set_scores


class RecallOverWords(BestOverTargets):
    """Share of the target's normalised words found in the response."""

    name = "fmeval/recall_over_words"
    definition = "Recall as in `fmeval/f1_over_words`, best over the targets."
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_set_scores(output, target)[1]
