"""SQuAD's text normalisation and token F1, as NeMo's ``em`` and ``f1`` use them (FMEval's own
normalisation differs: :mod:`evald.metrics.text.quac`)."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    """SQuAD's normalisation: lowercase, drop ASCII punctuation (``string.punctuation``), drop
    the articles a/an/the as whole words, collapse any whitespace to one space."""
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
