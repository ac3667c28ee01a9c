"""``fmeval/f1_over_words``: F1 over the sets of normalised words, best over the targets."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets
from evald.metrics.text.quac import word_scores


class F1OverWords(BestOverTargets):
    """F1 over the sets of normalised words, best over the targets."""

    name = "fmeval/f1_over_words"
    definition = (
        "Both sides are stripped and normalised as for `fmeval/quasi_exact_match`, then split "
        "into *sets* of words on any whitespace. precision = shared words / response words, "
        "recall = shared words / target words, F1 = 1 / (0.5 / precision + 0.5 / recall) "
        "(NLTK's `f_measure`, as FMEval). A side without words scores 0 (NLTK gives None, "
        "FMEval reports 0), even when both are empty; no shared word scores 0. Best over the "
        "targets (reference split on `<OR>`)."
    )
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_scores(output, target)[2]
