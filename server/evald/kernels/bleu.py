"""Sentence and corpus BLEU, score for score equal to sacrebleu's defaults.

``sentence_bleu(h, r)`` equals ``sacrebleu.sentence_bleu(h, [r]).score`` and ``corpus_bleu``
equals ``sacrebleu.corpus_bleu(hs, [rs]).score``: the ``13a`` tokenizer (mteval-v13a, as WMT
uses), ``exp`` smoothing, n-grams up to 4, case-sensitive, one reference per hypothesis. The
tokens are 13a's (its rules, rewritten as equivalent C-level replacements, see below), the
clipped n-gram counts are the same integers, and the score's float operations are sacrebleu
2.x's ``compute_bleu``, in the same order. What is saved is sacrebleu's per-call object set-up
(``sentence_bleu`` builds a new ``BLEU`` and tokenizer every time), its per-match template
expansion, and its Python-level n-gram loops.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from evald.kernels._counting import ngrams, overlap

MAX_NGRAM_ORDER = 4
"""sacrebleu's default (and only, here) maximum n-gram order."""

TOKEN_CACHE_SIZE = 2048
"""Distinct texts whose tokens are kept (a reference is often scored against many outputs)."""

TOKEN_CACHE_MAX_CHARS = 4096
"""Longer texts are not cached, so the cache stays small (at most ~``2048 * 4096`` chars)."""

# sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp, the second half of 13a, is four regular
# expression substitutions. The first, ([\{-\~\[-\`\ -\&\(-\+\:-\@\/]) -> " \1 ", pads single
# characters one by one: a character translation. str.replace per character present is faster
# than str.translate to strings; spaces go first, so the spaces other characters add stay as
# they are, as in a single pass.
_PADDED = "".join(
    chr(c)
    for lo, hi in (("{", "~"), ("[", "`"), (" ", "&"), ("(", "+"), (":", "@"), ("/", "/"))
    for c in range(ord(lo), ord(hi) + 1)
)
_PADDED_NOT_SPACE = tuple(c for c in _PADDED if c != " ")
# The other three use group references, which Python 3.11 expands in Python for every match.
# Written with look-arounds they take literal replacements (expanded in C). That is exact while
# their matches cannot overlap, i.e. unless a "." or "," follows another; the originals handle
# that case. The third can never overlap, and pads the same without a condition.
_PERIOD_COMMA_AFTER = re.compile(r"([^0-9])([\.,])")
_PERIOD_COMMA_BEFORE = re.compile(r"([\.,])([^0-9])")
# Each pattern starts with its literal character (found by fast search) and looks back after it.
_PERIOD_AFTER = re.compile(r"\.(?<=[^0-9]\.)")
_COMMA_AFTER = re.compile(r",(?<=[^0-9],)")
_PERIOD_BEFORE = re.compile(r"\.(?=[^0-9])")
_COMMA_BEFORE = re.compile(r",(?=[^0-9])")
_DIGIT_DASH = re.compile(r"-(?<=[0-9]-)")


def _tokenize_13a(line: str) -> tuple[str, ...]:
    """``Tokenizer13a()(line).split()`` (sacrebleu.tokenizers.tokenizer_13a)."""
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    line = f" {line} ".replace(" ", "   ")
    for char in _PADDED_NOT_SPACE:
        if char in line:
            line = line.replace(char, f" {char} ")
    if "." in line or "," in line:
        if ".." in line or ".," in line or ",." in line or ",," in line:
            line = _PERIOD_COMMA_AFTER.sub(r"\1 \2 ", line)
            line = _PERIOD_COMMA_BEFORE.sub(r" \1 \2", line)
        else:
            line = _PERIOD_AFTER.sub(" . ", line)
            line = _COMMA_AFTER.sub(" , ", line)
            line = _PERIOD_BEFORE.sub(" . ", line)
            line = _COMMA_BEFORE.sub(" , ", line)
    if "-" in line:
        line = _DIGIT_DASH.sub(" - ", line)
    return tuple(line.split())


_cached_tokenize_13a = lru_cache(maxsize=TOKEN_CACHE_SIZE)(_tokenize_13a)


def tokenize(text: str) -> tuple[str, ...]:
    """The tokens sacrebleu's BLEU sees for ``text`` (right-stripped, then 13a)."""
    text = text.rstrip()
    if len(text) <= TOKEN_CACHE_MAX_CHARS:
        return _cached_tokenize_13a(text)
    return _tokenize_13a(text)


def statistics(hypothesis: Sequence[str], reference: Sequence[str]) -> list[int]:
    """``[hyp_len, ref_len, correct_1..4, total_1..4]``, as sacrebleu's segment statistics."""
    correct = [
        overlap(ngrams(hypothesis, n), ngrams(reference, n)) for n in range(1, MAX_NGRAM_ORDER + 1)
    ]
    total = [max(len(hypothesis) - n + 1, 0) for n in range(1, MAX_NGRAM_ORDER + 1)]
    return [len(hypothesis), len(reference), *correct, *total]


def _log(value: float) -> float:
    """sacrebleu.utils.my_log: log, floored for 0."""
    return -9999999999 if value == 0.0 else math.log(value)


def score(stats: Sequence[int], effective_order: bool) -> float:
    """BLEU (0..100) from summed statistics: ``BLEU.compute_bleu`` with ``exp`` smoothing."""
    sys_len, ref_len = stats[0], stats[1]
    correct = stats[2 : 2 + MAX_NGRAM_ORDER]
    total = stats[2 + MAX_NGRAM_ORDER :]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    precisions = [0.0] * MAX_NGRAM_ORDER
    smooth_mteval = 1.0
    eff_order = MAX_NGRAM_ORDER
    for n in range(1, MAX_NGRAM_ORDER + 1):
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            smooth_mteval *= 2
            precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    # sum() of a list, left to right, as sacrebleu does.
    return bp * math.exp(sum([_log(p) for p in precisions[:eff_order]]) / eff_order)


def sentence_bleu(hypothesis: str, reference: str, *, effective_order: bool = True) -> float:
    """``sacrebleu.sentence_bleu(hypothesis, [reference], use_effective_order=...).score``."""
    return score(statistics(tokenize(hypothesis), tokenize(reference)), effective_order)


def corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[str], *, effective_order: bool = False
) -> float:
    """``sacrebleu.corpus_bleu(hypotheses, [references], use_effective_order=...).score``.

    Raises ValueError when the two lists differ in length or are empty (sacrebleu would
    silently truncate, or fail).
    """
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    if not hypotheses:
        raise ValueError("corpus BLEU needs at least one hypothesis")
    totals = [0] * (2 + 2 * MAX_NGRAM_ORDER)
    for hypothesis, reference in zip(hypotheses, references, strict=True):
        stats = statistics(tokenize(hypothesis), tokenize(reference))
        totals = [a + b for a, b in zip(totals, stats, strict=True)]
    return score(totals, effective_order)
