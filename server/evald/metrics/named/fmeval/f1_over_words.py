"""``fmeval/f1_over_words``: F1 over the sets of normalised words, best over the targets."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text.squad import word_set_scores


class F1OverWords(BestOverTargets):
    """F1 over the sets of normalised words, best over the targets."""

    name = "fmeval/f1_over_words"
    definition = (
        "F1 over the *sets* of words of the normalised response and target (as FMEval, with "
        "NLTK's set-based `f_measure`): precision = shared words / response words, recall = "
        "shared words / target words. Best over the targets. Both empty 1, one empty 0."
    )
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_set_scores(output, target)[2]
