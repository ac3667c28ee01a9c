"""Text normalisations and word-overlap scores shared by the NeMo and FMEval metrics."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    """SQuAD's normalisation, which FMEval also uses: lowercase, drop ASCII punctuation
    (``string.punctuation``), drop the articles a/an/the, collapse whitespace."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, truth: str) -> float:
    """F1 over the multiset of normalised tokens (SQuAD v2): both empty 1, one empty 0."""
    pred, gold = normalize(prediction).split(), normalize(truth).split()
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def word_set_scores(prediction: str, truth: str) -> tuple[float, float, float]:
    """(precision, recall, F1) over the *sets* of normalised words, as FMEval computes them
    (NLTK's ``precision``/``recall``/``f_measure``); both empty 1, one empty 0."""
    pred, gold = set(normalize(prediction).split()), set(normalize(truth).split())
    if not pred or not gold:
        same = float(pred == gold)
        return same, same, same
    common = len(pred & gold)
    precision, recall = common / len(pred), common / len(gold)
    f1 = 0.0 if common == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1
