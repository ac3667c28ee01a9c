"""ROUGE-N, ROUGE-L and ROUGE-Lsum, score for score equal to Google's ``rouge-score``.

Each function here mirrors one step of ``rouge_score`` 0.1.2 (``tokenize.tokenize``,
``rouge_scorer._score_ngrams``, ``_score_lcs``, ``_summary_level_lcs``, ``scoring.fmeasure``)
with the same integer counts and the same float operations in the same order, so precision,
recall and F-measure are the very same floats. What changes is how the counts are found:

* one tokenization per text serves every requested type; stems and token ids are cached
  (bounded);
* tokens become ints (equal forms, equal ints), n-grams are counted by ``collections.Counter``
  over ``zip``;
* rougeL's LCS length comes from rapidfuzz (C++), rougeLsum's alignment from
  :mod:`evald.kernels._lcs` (bit-parallel, same alignment as rouge-score's backtracking).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain, count
from typing import NamedTuple

from nltk.stem import porter  # type: ignore[import-untyped]

from evald.kernels._counting import ngrams, overlap
from evald.kernels._lcs import lcs_length, lcs_positions, match_masks

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""Every type rouge-score accepts: ``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``."""

SentenceSplitter = Callable[[str], Sequence[str]]
"""Splits a text into sentences for rougeLsum (rouge-score's ``split_summaries``)."""

STEM_CACHE_SIZE = 1 << 16
"""Distinct tokens whose stems are kept; stemming is most of tokenization's cost."""

STEM_CACHE_MAX_CHARS = 64
"""Longer tokens are stemmed without the cache, so it stays small (at most ~4 MB of tokens)."""

# rouge_score.tokenize replaces runs of [^a-z0-9] by spaces, splits, then keeps VALID tokens.
_ALPHANUM_RUN = re.compile(r"[a-z0-9]+")
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")
# The same for ASCII text, at C speed: bytes lower-cased, every byte but [a-z0-9] a space, so
# split() gives exactly the [a-z0-9]+ runs of text.lower().
_ASCII_RUNS = bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 32 for c in range(256)
)

# rouge-score's DefaultTokenizer builds PorterStemmer() (NLTK_EXTENSIONS mode); stem() only
# reads the stemmer, so one instance serves every thread.
_STEMMER = porter.PorterStemmer()


class Score(NamedTuple):
    """Precision, recall and F-measure, as ``rouge_score.scoring.Score``."""

    precision: float
    recall: float
    fmeasure: float


_ZERO = Score(0.0, 0.0, 0.0)


def fmeasure(precision: float, recall: float) -> float:
    """``rouge_score.scoring.fmeasure``: same expression, so the same rounding."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _stem_uncached(token: str) -> str | None:
    """rouge-score's stemmed form of ``token``, or None when its validity filter drops it.

    Only tokens longer than 3 characters are stemmed; shorter ones pass through (and are
    cached too, so a whole token list maps through the cache in one C-level loop).
    """
    if len(token) <= 3:
        return token
    stem: str = _STEMMER.stem(token)
    return stem if _VALID_TOKEN.match(stem) else None


class _StemCache(dict[str, "str | None"]):
    """Token -> stem (None: dropped). A plain dict whose lookups run in C (``map`` over
    ``__getitem__``); a miss stems and stores. Full, it starts over: cheaper per hit than an
    LRU's bookkeeping, and half the memory (an LRU keeps a link object per entry), which
    matters when the server's processes share the CPU caches."""

    def __missing__(self, token: str) -> str | None:
        stem = _stem_uncached(token)
        if len(self) >= STEM_CACHE_SIZE:
            self.clear()
        self[token] = stem
        return stem


_STEMS = _StemCache()
_stem = _STEMS.__getitem__


def tokenize(text: str, use_stemmer: bool) -> list[str]:
    """``rouge_score.tokenize.tokenize(text, stemmer)``.

    After rouge-score's substitution only ``[a-z0-9 ]`` is left, so its ``\\s+`` split plus
    validity filter keeps exactly the maximal ``[a-z0-9]+`` runs of the lower-cased text.
    """
    tokens: list[str] = _ALPHANUM_RUN.findall(text.lower())
    if not use_stemmer:
        return tokens
    long_tokens = tokens and max(map(len, tokens)) > STEM_CACHE_MAX_CHARS
    stemmed = list(map(_stem_uncached if long_tokens else _stem, tokens))
    if None in stemmed:
        return [token for token in stemmed if token is not None]
    return stemmed  # type: ignore[return-value]  # no None left


def _id_lists(token_lists: Sequence[list[str]]) -> list[list[int]]:
    """The token lists with each distinct token replaced by its own small int.

    rapidfuzz compares list items by hash; distinct ints are never confused, strings could be.
    """
    ids = {token: i for i, token in enumerate(dict.fromkeys(chain.from_iterable(token_lists)))}
    return [list(map(ids.__getitem__, tokens)) for tokens in token_lists]


def _runs(text: str) -> list[str] | list[bytes]:
    """The ``[a-z0-9]+`` runs of ``text.lower()`` (as bytes when ``text`` is ASCII)."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_RUNS).split()
    runs: list[str] = _ALPHANUM_RUN.findall(text.lower())
    return runs


class _TokenIds(dict["str | bytes", "int | None"]):
    """Token -> id of the form rouge-score compares (its stem with the stemmer, else itself);
    None for a token whose stem the validity filter drops. Equal forms get equal ids, so the
    ids of a pair carry exactly the equalities of its tokens, as :func:`_id_lists` gives them,
    in one C-level ``map`` per text instead of a stem lookup plus a dict built per pair."""

    __slots__ = ("_forms", "_new_ids", "_stemmed")

    def __init__(self, stemmed: bool) -> None:
        super().__init__()
        self._forms: dict[str, int] = {}
        # next() on a count is one C call: two threads missing at once never draw the same id.
        self._new_ids = count()
        self._stemmed = stemmed

    def __missing__(self, token: str | bytes) -> int | None:
        text = token.decode("ascii") if isinstance(token, bytes) else token
        form = _stem(text) if self._stemmed else text
        ident = None if form is None else self._forms.setdefault(form, next(self._new_ids))
        self[token] = ident
        return ident


_TOKEN_IDS = {False: _TokenIds(False), True: _TokenIds(True)}


def _token_ids(texts: Sequence[str], use_stemmer: bool) -> list[list[int]]:
    """The token ids of ``texts`` (``_id_lists`` of their tokenize(), in one id space).

    A full cache is replaced between pairs, never during one: a pair's ids all come from the
    same cache object (another thread may be scoring with the previous one).
    """
    runs = [_runs(text) for text in texts]
    if any(tokens and max(map(len, tokens)) > STEM_CACHE_MAX_CHARS for tokens in runs):
        # Long tokens are never cached (see tokenize): ids for this pair the uncached way.
        return _id_lists([tokenize(text, use_stemmer) for text in texts])
    ids = _TOKEN_IDS[use_stemmer]
    if len(ids) >= STEM_CACHE_SIZE:
        ids = _TOKEN_IDS[use_stemmer] = _TokenIds(use_stemmer)
    lists = []
    for tokens in runs:
        found = list(map(ids.__getitem__, tokens))
        if None in found:
            found = [ident for ident in found if ident is not None]
        lists.append(found)
    return lists  # type: ignore[return-value]  # no None left


def score_ngrams(target: list[int], prediction: list[int], n: int) -> Score:
    """ROUGE-N (``rouge_scorer._score_ngrams`` of ``_create_ngrams``)."""
    matches = overlap(ngrams(target, n), ngrams(prediction, n))
    # rouge-score divides by the n-gram totals, floored at 1.
    precision = matches / max(len(prediction) - n + 1, 1)
    recall = matches / max(len(target) - n + 1, 1)
    return Score(precision, recall, fmeasure(precision, recall))


def score_lcs(target: list[int], prediction: list[int]) -> Score:
    """ROUGE-L (``rouge_scorer._score_lcs``)."""
    if not target or not prediction:
        return _ZERO
    length = lcs_length(target, prediction)
    precision = length / len(prediction)
    recall = length / len(target)
    return Score(precision, recall, fmeasure(precision, recall))


def score_summary_lcs(target: list[list[int]], prediction: list[list[int]]) -> Score:
    """ROUGE-Lsum (``rouge_scorer._summary_level_lcs``) of tokenized sentences.

    rouge-score takes, for each target sentence, the union of its positions in the LCS with each
    prediction sentence, then counts those tokens while both texts still have them unused.
    Union positions are distinct target positions, so the target never runs out: a token's
    hits are min(times chosen, count in the prediction), in any order.
    """
    if not target or not prediction:
        return _ZERO
    m = sum(map(len, target))
    n = sum(map(len, prediction))
    if not n or not m:
        return _ZERO
    # Sentences without tokens add nothing to any union.
    target = [sentence for sentence in target if sentence]
    prediction = [sentence for sentence in prediction if sentence]
    if len(target) == 1 and len(prediction) == 1:
        # One LCS is a common subsequence: every chosen token is a hit.
        hits = lcs_length(target[0], prediction[0])
    else:
        chosen: Counter[int] = Counter()
        for sentence in target:
            masks = match_masks(sentence)
            union = 0
            for candidate in prediction:
                if not masks.keys().isdisjoint(candidate):
                    union |= lcs_positions(len(sentence), masks, candidate)
            chosen.update(sentence[i] for i in range(union.bit_length()) if union >> i & 1)
        available = Counter(token for sentence in prediction for token in sentence)
        hits = sum(min(count, available[token]) for token, count in chosen.items())
    recall = hits / m
    precision = hits / n
    return Score(precision, recall, fmeasure(precision, recall))


def _sentences(text: str, splitter: SentenceSplitter | None) -> list[str]:
    """rougeLsum's sentences: ``splitter(text)`` or newline-separated lines, empty ones dropped."""
    sentences = splitter(text) if splitter is not None else text.split("\n")
    return [sentence for sentence in sentences if sentence]


def _check_types(rouge_types: Sequence[str]) -> tuple[str, ...]:
    unknown = [name for name in rouge_types if name not in ROUGE_TYPES]
    if unknown:
        raise ValueError(f"unknown ROUGE types {unknown}; known: {', '.join(ROUGE_TYPES)}")
    return tuple(rouge_types)


class Rouge:
    """Scores ROUGE like ``rouge_score.rouge_scorer.RougeScorer`` with its default tokenizer.

    ``sentence_splitter`` stands for ``split_summaries=True`` (rouge-score would call
    ``nltk.sent_tokenize``); None splits rougeLsum's sentences on newlines. Immutable: one
    instance may serve concurrent requests.
    """

    __slots__ = ("_splitter", "_summary", "_whole", "rouge_types", "use_stemmer")

    def __init__(
        self,
        rouge_types: Sequence[str],
        *,
        use_stemmer: bool = False,
        sentence_splitter: SentenceSplitter | None = None,
    ) -> None:
        self.rouge_types = _check_types(rouge_types)
        self.use_stemmer = use_stemmer
        self._splitter = sentence_splitter
        self._summary = "rougeLsum" in self.rouge_types
        self._whole = any(rouge_type != "rougeLsum" for rouge_type in self.rouge_types)

    def score(self, target: str, prediction: str) -> dict[str, Score]:
        """Scores of ``prediction`` against ``target``, by type, as ``RougeScorer.score``."""
        target_ids, prediction_ids, target_sentences, prediction_sentences = self._ids(
            target, prediction
        )
        result: dict[str, Score] = {}
        lcs: Score | None = None
        for rouge_type in self.rouge_types:
            if rouge_type == "rougeL":
                lcs = result[rouge_type] = score_lcs(target_ids, prediction_ids)
            elif rouge_type != "rougeLsum":
                n = int(rouge_type[5:])
                result[rouge_type] = score_ngrams(target_ids, prediction_ids, n)
        if self._summary:
            if target_sentences is None or prediction_sentences is None:
                # One sentence each, the whole texts: rougeLsum is rougeL (see score_summary_lcs).
                result["rougeLsum"] = (
                    lcs if lcs is not None else score_lcs(target_ids, prediction_ids)
                )
            else:
                result["rougeLsum"] = score_summary_lcs(target_sentences, prediction_sentences)
            result = {rouge_type: result[rouge_type] for rouge_type in self.rouge_types}
        return result

    def _ids(
        self, target: str, prediction: str
    ) -> tuple[list[int], list[int], list[list[int]] | None, list[list[int]] | None]:
        """Token ids of both texts, and of their sentences for rougeLsum.

        The sentence lists are None when rougeLsum is not requested, or when each text is one
        newline-free sentence: rougeLsum then equals rougeL.
        """
        stem = self.use_stemmer
        if not self._summary:
            target_ids, prediction_ids = _token_ids([target, prediction], stem)
            return target_ids, prediction_ids, None, None
        target_sentences = _sentences(target, self._splitter)
        prediction_sentences = _sentences(prediction, self._splitter)
        split_at = len(target_sentences)
        if self._splitter is None:
            # Newline-split lines partition the text (a newline only separates tokens), so the
            # whole texts' tokens are the lines' tokens end to end.
            lines = _token_ids([*target_sentences, *prediction_sentences], stem)
            target_split, prediction_split = lines[:split_at], lines[split_at:]
            target_ids = list(chain.from_iterable(target_split))
            prediction_ids = list(chain.from_iterable(prediction_split))
            if len(target_split) == 1 and len(prediction_split) == 1:
                return target_ids, prediction_ids, None, None
            return target_ids, prediction_ids, target_split, prediction_split
        # A splitter's sentences need not partition the text: tokenize the texts on their own.
        whole = [target, prediction] if self._whole else []
        lists = _token_ids([*whole, *target_sentences, *prediction_sentences], stem)
        if not self._whole:
            lists = [[], [], *lists]
        cut = 2 + split_at
        return lists[0], lists[1], lists[2:cut], lists[cut:]


def clear_stem_cache() -> None:
    """Forget cached stems and token ids (benchmarks measure a cold start with it)."""
    _STEMS.clear()
    _TOKEN_IDS[False] = _TokenIds(False)
    _TOKEN_IDS[True] = _TokenIds(True)
