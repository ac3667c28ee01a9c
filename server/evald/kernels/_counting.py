"""Multiset overlap of n-gram lists, the core count of both ROUGE-N and BLEU."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def ngrams(tokens: Sequence[Hashable], n: int) -> list[Hashable]:
    """The ``n``-grams of ``tokens`` in order (tokens themselves for ``n == 1``)."""
    if n == 1:
        return list(tokens)
    return list(zip(*(tokens[i:] for i in range(n)), strict=False))


def overlap(first: list[Hashable], second: list[Hashable]) -> int:
    """Size of the multiset intersection: the sum over items of min(count in each list).

    This is the clipped match count of ``rouge_scorer._score_ngrams`` and of sacrebleu's
    ``_compute_segment_statistics``, computed with C-level set, filter and map operations.
    """
    first_set = set(first)
    second_set = set(second)
    common = first_set & second_set
    if not common or len(first_set) == len(first) or len(second_set) == len(second):
        return len(common)  # one side has no repeats: each common item counts once
    # Count only the shared items.
    first_counts = Counter(filter(common.__contains__, first))
    second_counts = Counter(filter(common.__contains__, second))
    return sum(
        map(min, map(first_counts.__getitem__, common), map(second_counts.__getitem__, common))
    )
