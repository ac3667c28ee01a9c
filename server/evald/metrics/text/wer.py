"""Word error rate as Hugging Face ``evaluate``'s ``wer`` metric computes it (the metric FMEval's
general semantic robustness loads), over jiwer 3's default word splitting.

``evaluate.load("wer").compute(predictions, references)`` (``concatenate_texts=False``) asks
jiwer for the edit operations of each (reference, prediction) pair and returns

    sum(substitutions + deletions + insertions) / sum(substitutions + deletions + hits)

over the pairs: the total word-level Levenshtein distance over the total number of reference
words (every reference word is a hit, a substitution or a deletion, however the alignment breaks
ties), a corpus rate rather than a mean of per-pair rates.

Words are what jiwer 3's default transformation (``wer_default``) makes of a text:

1. every run of two or more whitespace characters (``\\s\\s+``, Unicode) becomes one space; a
   single tab, newline or non-breaking space is left alone;
2. surrounding whitespace is stripped;
3. the text is split on the space character and empty pieces dropped.

So ``"a\\tb"`` is one word but ``"a \\tb"`` and ``"a\\t\\tb"`` are two. jiwer refuses a
reference without words (``ValueError``), and so does :func:`corpus_wer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_RUNS = re.compile(r"\s\s+")


def words(text: str) -> list[str]:
    """The words of ``text`` as jiwer's default transformation gives them."""
    return [word for word in _RUNS.sub(" ", text).strip().split(" ") if word]


def distance(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """The Levenshtein distance between two word sequences (each edit costs 1)."""
    if len(hypothesis) > len(reference):
        reference, hypothesis = hypothesis, reference
    # One row of the table over the shorter sequence.
    previous = list(range(len(hypothesis) + 1))
    for i, ref_word in enumerate(reference, 1):
        current = [i]
        for j, hyp_word in enumerate(hypothesis, 1):
            current.append(
                min(
                    previous[j] + 1,
                    current[j - 1] + 1,
                    previous[j - 1] + (ref_word != hyp_word),
                )
            )
        previous = current
    return previous[-1]


def corpus_wer(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Total word edit distance over total reference words, pairing ``predictions[i]`` with
    ``references[i]``. ValueError when the lengths differ, there are no pairs, or a reference
    has no words (jiwer's refusal)."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    if not references:
        raise ValueError("no predictions and references to compare")
    errors = 0
    total = 0
    for prediction, reference in zip(predictions, references, strict=True):
        reference_words = words(reference)
        if not reference_words:
            raise ValueError("a reference has no words")
        errors += distance(reference_words, words(prediction))
        total += len(reference_words)
    return errors / total
