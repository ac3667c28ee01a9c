"""evald.kernels.bleu gives the very floats sacrebleu gives (compared with ==).

References: ``sacrebleu.sentence_bleu(h, [r], use_effective_order=...)`` and
``sacrebleu.corpus_bleu(hs, [rs], use_effective_order=...)``, called directly with their
defaults (13a tokenizer, exp smoothing).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
import sacrebleu
from evald.kernels.bleu import corpus_bleu, sentence_bleu, tokenize
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from tests.unit.kernels import texts


@pytest.fixture(scope="module", autouse=True)
def _quiet_sacrebleu() -> Iterator[None]:
    # sacrebleu logs a warning per sentence scored without effective order.
    logger = logging.getLogger("sacrebleu")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


BANDS = [
    pytest.param(11, 1500, 0, 30, id="short"),
    pytest.param(12, 400, 30, 150, id="medium"),
    pytest.param(13, 60, 150, 500, id="long"),
]


@pytest.mark.parametrize("effective_order", [True, False])
@pytest.mark.parametrize(("seed", "count", "lo", "hi"), BANDS)
def test_sentence_bleu_generated(
    effective_order: bool, seed: int, count: int, lo: int, hi: int
) -> None:
    wrong = []
    for reference, hypothesis in texts.pairs(seed, count, lo, hi):
        expected = sacrebleu.sentence_bleu(
            hypothesis, [reference], use_effective_order=effective_order
        ).score
        got = sentence_bleu(hypothesis, reference, effective_order=effective_order)
        if got != expected:
            wrong.append((hypothesis, reference, expected, got))
    assert wrong[:3] == []


@pytest.mark.parametrize("effective_order", [True, False])
def test_sentence_bleu_edge_cases(effective_order: bool) -> None:
    wrong = []
    for reference in texts.EDGE_TEXTS:
        for hypothesis in texts.EDGE_TEXTS:
            expected = sacrebleu.sentence_bleu(
                hypothesis, [reference], use_effective_order=effective_order
            ).score
            got = sentence_bleu(hypothesis, reference, effective_order=effective_order)
            if got != expected:
                wrong.append((hypothesis, reference, expected, got))
    assert wrong[:3] == []


@pytest.mark.parametrize("effective_order", [True, False])
@pytest.mark.parametrize(("seed", "size"), [(21, 1), (22, 7), (23, 40), (24, 200)])
def test_corpus_bleu_generated(effective_order: bool, seed: int, size: int) -> None:
    rng = random.Random(seed)
    for corpus in range(10):
        pairs = texts.pairs(seed * 100 + corpus, size, 0, rng.choice((5, 30, 120)))
        references = [reference for reference, _ in pairs]
        hypotheses = [hypothesis for _, hypothesis in pairs]
        expected = sacrebleu.corpus_bleu(
            hypotheses, [references], use_effective_order=effective_order
        ).score
        assert corpus_bleu(hypotheses, references, effective_order=effective_order) == expected


def test_corpus_bleu_rejects_mismatched_or_empty_lists() -> None:
    with pytest.raises(ValueError, match="2 hypotheses but 1 references"):
        corpus_bleu(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="at least one"):
        corpus_bleu([], [])


@pytest.mark.parametrize(
    ("hypothesis", "reference", "expected"),
    [
        ("", "", 0.0),
        ("the cat sat on the mat", "the cat sat on the mat", 100.0),
        ("a b c d", "e f g h", 0.0),
    ],
)
def test_hand_worked(hypothesis: str, reference: str, expected: float) -> None:
    assert sentence_bleu(hypothesis, reference) == pytest.approx(expected)


_TOKENIZER_13A: Any = Tokenizer13a()  # type: ignore[no-untyped-call]


def _tokens_13a(text: str) -> tuple[str, ...]:
    return tuple(_TOKENIZER_13A(text.rstrip()).split())


@pytest.mark.parametrize("text", texts.EDGE_TEXTS)
def test_tokenize_matches_13a(text: str) -> None:
    assert tokenize(text) == _tokens_13a(text)


def test_tokenize_long_text_skips_the_cache() -> None:
    text = "Hello, world. " * 1000
    assert tokenize(text) == _tokens_13a(text)


# Characters around which 13a's rules differ: punctuation runs, digits, dashes, entities.
_CHARS = st.sampled_from([*"ab1 9.,-&;<>\n\t\u00a0é\"'()/:@#~`^_\\|*+?!=%$", "&quot;", "&amp;"])


@settings(max_examples=300, deadline=None)
@given(text=st.lists(_CHARS, max_size=30).map("".join))
def test_hypothesis_tokenize(text: str) -> None:
    assert tokenize(text) == _tokens_13a(text)


@settings(max_examples=200, deadline=None)
@given(
    hypothesis=st.lists(_CHARS, max_size=60).map("".join),
    reference=st.lists(_CHARS, max_size=60).map("".join),
    effective_order=st.booleans(),
)
def test_hypothesis_sentence_bleu(hypothesis: str, reference: str, effective_order: bool) -> None:
    expected = sacrebleu.sentence_bleu(
        hypothesis, [reference], use_effective_order=effective_order
    ).score
    assert sentence_bleu(hypothesis, reference, effective_order=effective_order) == expected
