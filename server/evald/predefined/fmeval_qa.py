"""FMEval QA accuracy scores: exact match, quasi exact match, precision/recall/F1 over words.

The reference may hold several acceptable answers separated by ``target_output_delimiter``
(``<OR>`` by default); the score is the best over them.
"""

from __future__ import annotations

from collections.abc import Callable

from evald.metric_api.base import Outcome
from evald.metric_api.instance import InstanceView
from evald.predefined.base import ComputedPredefined, Parameter, Params
from evald.predefined.text import normalize, word_set_scores

DELIMITER = Parameter(
    "target_output_delimiter", "string", "separates acceptable answers in the reference", "<OR>"
)


class _BestOverTargets(ComputedPredefined):
    family = "fmeval"
    parameters = (DELIMITER,)
    compare: Callable[[str, str], float]

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        delimiter = params.string("target_output_delimiter")
        reference = instance.require("reference")
        targets = reference.split(delimiter) if delimiter else [reference]
        return Outcome(max(type(self).compare(output, t) for t in targets))


class ExactMatch(_BestOverTargets):
    """1 when the response equals a target after stripping surrounding whitespace."""

    name = "fmeval/exact_match"
    definition = (
        "1 when `response.strip() == target.strip()` for some target (reference split on "
        "`<OR>`), else 0. Case and punctuation count."
    )

    @staticmethod
    def compare(output: str, target: str) -> float:
        return float(output.strip() == target.strip())


class QuasiExactMatch(_BestOverTargets):
    """1 when the normalised response equals a normalised target."""

    name = "fmeval/quasi_exact_match"
    definition = (
        "1 when the response and some target are equal after FMEval's normalisation: "
        "lowercase, remove punctuation, remove the articles a/an/the, collapse whitespace."
    )

    @staticmethod
    def compare(output: str, target: str) -> float:
        return float(normalize(output) == normalize(target))


class F1OverWords(_BestOverTargets):
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


class PrecisionOverWords(_BestOverTargets):
    """Share of the response's normalised words found in the target."""

    name = "fmeval/precision_over_words"
    definition = "Precision as in `fmeval/f1_over_words`, best over the targets."
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_set_scores(output, target)[0]


class RecallOverWords(_BestOverTargets):
    """Share of the target's normalised words found in the response."""

    name = "fmeval/recall_over_words"
    definition = "Recall as in `fmeval/f1_over_words`, best over the targets."
    score_range = "0..1"

    @staticmethod
    def compare(output: str, target: str) -> float:
        return word_set_scores(output, target)[1]
