"""Distinct, English-like text pairs for throughput runs (deterministic, no downloads).

Caches in the libraries measured (and ours) make repeated texts look faster than they are, so
every pair is new text. Words come from a Zipf-weighted synthetic vocabulary with English
suffixes (so the Porter stemmer has real work), sentences end in punctuation, and each
prediction reuses most of its reference's words in a locally shuffled order, as model output
against a reference does.
"""

from __future__ import annotations

import itertools
import random

_ONSETS = ("b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ea", "ou")
_SUFFIXES = ("", "", "", "s", "ed", "ing", "ly", "er", "ation", "ness", "ment", "ful")
_COMMON = (
    "the of and to a in is that it for was on are as with be by this at from or an have not "
    "but they which one you were all we when there can more if no out so said what up its "
    "about into than them only other new some could time these two may then first any"
)
_FUNCTION_WORDS = tuple(_COMMON.split())
_PUNCTUATION = (".", ".", ".", "?", "!", ";")


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: list[str] = []
    seen: set[str] = set(_FUNCTION_WORDS)
    while len(words) < size:
        stem = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3)))
        word = stem + rng.choice(_SUFFIXES)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class TextSource:
    """Makes distinct (reference, prediction) pairs of a given token count."""

    def __init__(self, seed: int = 0, vocabulary: int = 20_000) -> None:
        self._rng = random.Random(seed)
        words = list(_FUNCTION_WORDS) + _vocabulary(self._rng, vocabulary)
        self.words: tuple[str, ...] = tuple(words)
        """Every word the texts draw from."""
        # Zipf-like weights: common words dominate, as in real text.
        self._cumulative = list(
            itertools.accumulate(1.0 / (rank + 1) for rank in range(len(words)))
        )
        self._seen: set[tuple[str, str]] = set()

    def _tokens(self, count: int) -> list[str]:
        return self._rng.choices(self.words, cum_weights=self._cumulative, k=count)

    def _render(self, tokens: list[str], newlines: bool) -> str:
        rng = self._rng
        parts: list[str] = []
        sentence_start = True
        for index, token in enumerate(tokens):
            word = token.capitalize() if sentence_start else token
            if rng.random() < 0.02:
                word = str(rng.randint(0, 2026))
            parts.append(word)
            sentence_start = False
            if index + 1 < len(tokens) and rng.random() < 1 / 15:
                parts[-1] += rng.choice(_PUNCTUATION)
                sentence_start = True
                if newlines:
                    parts[-1] += "\n"
            elif rng.random() < 0.05:
                parts[-1] += ","
        text = " ".join(parts).replace("\n ", "\n")
        return text + "."

    def pair(self, tokens: int, *, newlines: bool = False) -> tuple[str, str]:
        """One new (reference, prediction) pair of about ``tokens`` words each."""
        rng = self._rng
        reference = self._tokens(tokens)
        prediction = list(reference)
        for i in range(len(prediction)):
            roll = rng.random()
            if roll < 0.25:
                prediction[i] = self._tokens(1)[0]
            elif roll < 0.40 and i + 1 < len(prediction):
                prediction[i], prediction[i + 1] = prediction[i + 1], prediction[i]
        pair = self._render(reference, newlines), self._render(prediction, newlines)
        if pair in self._seen:  # rare, for tiny token counts: draw again
            return self.pair(tokens, newlines=newlines)
        self._seen.add(pair)
        return pair

    def pairs(self, count: int, tokens: int, *, newlines: bool = False) -> list[tuple[str, str]]:
        """``count`` new pairs of about ``tokens`` words each."""
        return [self.pair(tokens, newlines=newlines) for _ in range(count)]
