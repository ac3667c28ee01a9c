"""Longest common subsequences of token-id lists, with rouge-score's choice of alignment.

``rouge_score.rouge_scorer.lcs_ind`` fills the whole ``len(ref) x len(can)`` table in Python and
walks back from the bottom-right corner: take the cell's tokens when they are equal, otherwise
step up (drop a reference token) unless stepping left keeps a strictly larger LCS. Several LCS
usually exist, and rougeLsum's union of them depends on which one is taken, so we reproduce
that exact walk, from the table's columns computed bit-parallel (one Python integer per
candidate token, one bit per reference token; Allison-Dix / Hyyro):

* bit ``i`` of column ``j`` is set when ``t[i + 1][j] == t[i][j] + 1``, so the walk's
  "step up while the value stays the same" is one jump to the highest set bit below the
  current row, and the match it stops on is the highest matching row above that bit;
* every step of the walk then moves one column left, so it costs ``len(can)`` big-integer
  operations instead of ``len(ref) * len(can)`` interpreted ones.

The length alone (rougeL) comes from rapidfuzz's C++ ``LCSseq``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import LCSseq


def lcs_length(ref: Sequence[int], can: Sequence[int]) -> int:
    """Length of a longest common subsequence of two token-id lists."""
    if not ref or not can:
        return 0
    return int(LCSseq.similarity(ref, can))


def match_masks(ref: Sequence[int]) -> dict[int, int]:
    """For each token id of ``ref``, the bit mask of the positions holding it."""
    masks: dict[int, int] = {}
    for position, token in enumerate(ref):
        masks[token] = masks.get(token, 0) | (1 << position)
    return masks


def lcs_positions(ref_len: int, masks: dict[int, int], can: Sequence[int]) -> int:
    """Bit mask of the ``ref`` positions in the LCS that rouge-score's ``lcs_ind`` picks.

    ``masks`` is :func:`match_masks` of ``ref`` (length ``ref_len``).
    """
    full = (1 << ref_len) - 1
    # Forward pass: the complement of each column's "row increments" bit vector.
    column = full
    columns = []
    for token in can:
        match = column & masks.get(token, 0)
        column = ((column + match) | (column - match)) & full
        columns.append(column)
    # Backward walk, one column per step; `below` holds the rows above the walk's position.
    chosen = 0
    below = full
    for j in range(len(can) - 1, -1, -1):
        increments = ~columns[j] & below
        if not increments:
            break  # no LCS left above this cell: the walk matches nothing more
        top = increments.bit_length() - 1  # first row of the current LCS value, minus one
        matches = masks.get(can[j], 0) & below & ~((1 << top) - 1)
        if matches:
            row = matches.bit_length() - 1
            chosen |= 1 << row
            below = (1 << row) - 1
        else:
            below = (1 << (top + 1)) - 1
    return chosen
