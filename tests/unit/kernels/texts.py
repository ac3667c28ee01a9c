"""Deterministic generated texts for the kernel identity tests.

Token pools favour what breaks tokenizers and alignments: repeated words (many equal LCS),
words the Porter stemmer changes, numbers with separators, unicode (letters that lower-case to
ASCII, final sigma, CJK, emoji), punctuation-only tokens, sacrebleu's 13a specials
(``&quot;``, ``<skipped>``, ``-\\n``), abbreviations that trip sentence splitting, and newlines.
"""

from __future__ import annotations

import random

_WORD_LIST = (
    "the a of to and in cat cats dog dogs running runs ran run easily easy generalization "
    "generalize relational conditional caresses ponies ties sized hopping falling"
)
_ODD_LIST = (
    "42 3.14 1,000 5-3 2026 e.g. Mr. Dr. U.S. don't it's well-known "
    "Über İstanbul ΣΟΦΙΑ ΟΔΟΣ naïve façade straße 東京 😀 K Å "
    ". , ! ? ... -- ( ) ; : \" ' &quot; &amp; &lt; <skipped> -\n / @ # * _ ~ ` |"
)
_WORDS = tuple(_WORD_LIST.split())
_ODD = tuple(_ODD_LIST.split(" "))
_SEPARATORS = (" ", " ", " ", " ", " ", "  ", "\t", "\n", ". ", ", ", "! ", "? ", ".\n", "\n\n")


def text(rng: random.Random, length: int, *, vocabulary: int = 0) -> str:
    """About ``length`` tokens; ``vocabulary`` > 0 draws words from that many only (repeats)."""
    words = _WORDS[: vocabulary or len(_WORDS)]
    parts: list[str] = []
    for _ in range(length):
        roll = rng.random()
        if roll < 0.12:
            parts.append(rng.choice(_ODD))
        elif roll < 0.16:
            parts.append(rng.choice(words).capitalize())
        else:
            parts.append(rng.choice(words))
        parts.append(rng.choice(_SEPARATORS))
    if parts and rng.random() < 0.5:
        parts.pop()  # sometimes no trailing separator
    return "".join(parts)


def pairs(seed: int, count: int, lo: int, hi: int) -> list[tuple[str, str]]:
    """``count`` (target, prediction) pairs with lengths in ``lo..hi`` tokens."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        vocabulary = rng.choice((0, 0, 3, 8))
        first = text(rng, rng.randint(lo, hi), vocabulary=vocabulary)
        roll = rng.random()
        if roll < 0.1:
            second = first  # identical
        elif roll < 0.4:
            # Mostly the same words, some changed: long common subsequences.
            tokens = first.split(" ")
            for i in range(len(tokens)):
                if rng.random() < 0.3:
                    tokens[i] = text(rng, 1, vocabulary=vocabulary)
            second = " ".join(tokens)
        else:
            second = text(rng, rng.randint(lo, hi), vocabulary=vocabulary)
        result.append((first, second))
    return result


EDGE_TEXTS = (
    "",
    " ",
    "\n",
    "\n\n\n",
    ".",
    "...!?,;",
    "&quot; &amp; <skipped> -\n",
    "the",
    "the the the the the",
    "The THE the. tHe",
    "Über naïve façade straße",
    "ΣΟΦΙΑ ΟΔΟΣ İstanbul K",
    "東京 😀 東京",
    "42 3.14 1,000 5-3 2026",
    "running runs ran run",
    "antidisestablishmentarianisms" * 3 + " runnings jumped",  # a token past the stem cache
    "a\nb\nc",
    "a b.\nb a.\n\na b",
    "Mr. Smith went to Washington. He arrived at 5 p.m. on Monday! Did he? Yes.",
    "cat " * 300,
    " ".join(["the cat sat on the mat"] * 80),
)
"""Edge-case texts; the tests score every ordered pair of them."""
