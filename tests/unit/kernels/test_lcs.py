"""evald.kernels._lcs picks the LCS alignment rouge-score's ``lcs_ind`` picks.

rougeLsum unions these alignments, so any other (equally long) LCS could change its score;
the reference is ``rouge_score.rouge_scorer.lcs_ind`` itself, on small alphabets where many
LCS exist.
"""

from __future__ import annotations

import itertools
import random

import pytest
from evald.kernels._lcs import lcs_length, lcs_positions, match_masks
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score.rouge_scorer import lcs_ind


def _positions(ref: list[int], can: list[int]) -> list[int]:
    chosen = lcs_positions(len(ref), match_masks(ref), can)
    return [i for i in range(len(ref)) if chosen >> i & 1]


@pytest.mark.parametrize("alphabet", [1, 2, 3])
def test_every_short_pair(alphabet: int) -> None:
    sequences = [list(s) for n in range(6) for s in itertools.product(range(alphabet), repeat=n)][
        :400
    ]
    wrong = [(r, c) for r in sequences for c in sequences[:60] if _positions(r, c) != lcs_ind(r, c)]
    assert wrong[:3] == []


@pytest.mark.parametrize(("alphabet", "max_len"), [(2, 20), (4, 40), (8, 80), (30, 150)])
def test_random_pairs(alphabet: int, max_len: int) -> None:
    rng = random.Random(alphabet)
    for _ in range(300):
        ref = [rng.randrange(alphabet) for _ in range(rng.randint(0, max_len))]
        can = [rng.randrange(alphabet) for _ in range(rng.randint(0, max_len))]
        expected = lcs_ind(ref, can)
        assert _positions(ref, can) == expected, (ref, can)
        assert lcs_length(ref, can) == len(expected)


@pytest.mark.parametrize(
    ("ref", "can", "expected"),
    [
        ([0, 1, 0], [0], [2]),  # walks back from the end: the last match
        ([1, 1], [1, 5], [0]),  # steps up before left when the LCS allows it
        ([], [1], []),
        ([1], [], []),
        ([1, 2, 3], [4, 5], []),
    ],
)
def test_hand_worked(ref: list[int], can: list[int], expected: list[int]) -> None:
    assert lcs_ind(ref, can) == expected  # the cases say what rouge-score does
    assert _positions(ref, can) == expected


@settings(max_examples=300, deadline=None)
@given(
    ref=st.lists(st.integers(0, 3), max_size=40),
    can=st.lists(st.integers(0, 3), max_size=40),
)
def test_hypothesis(ref: list[int], can: list[int]) -> None:
    assert _positions(ref, can) == lcs_ind(ref, can)
