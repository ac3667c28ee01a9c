"""FMEval's text normalisation (its "QuAC protocol") and its word-overlap scores.

This is not SQuAD's normalisation (:mod:`evald.metrics.text.squad`), although the two agree on
plain text: FMEval splits words on the space character only, so a tab, a newline or a
non-breaking space stays inside a word, and an article joined to its neighbour by one of them
(``the\\ncat``) is not an article and is kept.
"""

from __future__ import annotations

import string

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = frozenset(("a", "an", "the"))


def normalize(text: str) -> str:
    """Lowercase, drop ASCII punctuation (``string.punctuation``), split on ``" "``, drop empty
    words and the articles a/an/the, join with one space."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(w for w in text.split(" ") if w and w not in _ARTICLES)


def quasi_exact_match(output: str, target: str) -> float:
    """1 when both sides, stripped then normalised, are equal."""
    return float(normalize(output.strip()) == normalize(target.strip()))


def quasi_exact_inclusion(output: str, target: str) -> float:
    """1 when the stripped, normalised target is a substring of the stripped, normalised
    output (an empty target is in every output)."""
    return float(normalize(target.strip()) in normalize(output.strip()))


def word_scores(output: str, target: str) -> tuple[float, float, float]:
    """(precision, recall, F1) over the *sets* of words of both sides, stripped and normalised,
    then split on any whitespace (FMEval splits twice: on spaces to normalise, on whitespace
    to count). NLTK's ``precision``/``recall``/``f_measure`` give None for an empty side, and
    FMEval turns None into 0: so a side without words makes all three 0, even when both are
    empty."""
    test = set(normalize(output.strip()).split())
    reference = set(normalize(target.strip()).split())
    if not test or not reference:
        # precision has a denominator when only the reference is empty (and recall when only
        # the output is), but the shared count is then 0 anyway.
        return 0.0, 0.0, 0.0
    shared = len(test & reference)
    precision, recall = shared / len(test), shared / len(reference)
    if precision == 0 or recall == 0:
        return precision, recall, 0.0
    # NLTK's f_measure with alpha 0.5, written as it does (the float can differ from 2pr/(p+r)).
    return precision, recall, 1.0 / (0.5 / precision + 0.5 / recall)
