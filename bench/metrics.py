"""Section "metrics": ROUGE and BLEU throughput, evald's kernels vs the reference libraries.

In-process, single thread, on distinct English-like pairs (:mod:`bench.texts`) of about 10
(short), 60 (medium) and 400 (long) words. Each case alternates rounds of the two sides, so a
busy machine slows both alike; only the scoring calls are timed (making texts is not).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import sacrebleu
from evald.kernels import Rouge, sentence_bleu
from evald.kernels.rouge import clear_stem_cache, tokenize
from rouge_score.rouge_scorer import RougeScorer
from sacrebleu.metrics.base import Metric
from sacrebleu.metrics.bleu import BLEU

from bench.report import Row, Section
from bench.texts import TextSource

Scorer = Callable[[str, str], object]
"""Scores one (reference, prediction) pair."""

SIZES = {"short": 10, "medium": 60, "long": 400}
"""Words per text, by size name."""

ALL_FOUR = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@dataclass(frozen=True)
class Case:
    """One row: what is scored, on which texts, by ours and by the baseline."""

    case: str
    size: str
    ours: Scorer
    baseline: Scorer
    baseline_name: str
    newlines: bool = False
    cold: bool = False
    note: str = ""


def _rouge(types: list[str]) -> tuple[Scorer, Scorer]:
    ours = Rouge(types, use_stemmer=True)
    reference = RougeScorer(types, use_stemmer=True)
    return (
        lambda target, prediction: ours.score(target, prediction),
        lambda target, prediction: reference.score(target, prediction),
    )


def _bleu_reused() -> Scorer:
    # As evald's sacrebleu handler does: one BLEU object, Metric.sentence_score (no warning).
    scorer = BLEU(effective_order=True)
    return lambda reference, hypothesis: Metric.sentence_score(scorer, hypothesis, [reference])


def cases() -> list[Case]:
    """The benchmark's rows, in order."""
    rows: list[Case] = []
    for size in SIZES:
        ours, reference = _rouge(ALL_FOUR)
        rows.append(Case("ROUGE 1+2+L+Lsum, stemmer", size, ours, reference, "rouge-score"))
    for size in SIZES:
        ours, reference = _rouge(["rougeL"])
        rows.append(Case("ROUGE-L", size, ours, reference, "rouge-score"))
    for size in ("medium", "long"):
        ours, reference = _rouge(ALL_FOUR)
        rows.append(
            Case(
                "ROUGE 1+2+L+Lsum, stemmer",
                size,
                ours,
                reference,
                "rouge-score",
                newlines=True,
                note="one sentence per line (rougeLsum unions LCSs)",
            )
        )
    ours, reference = _rouge(ALL_FOUR)
    rows.append(
        Case(
            "ROUGE 1+2+L+Lsum, stemmer",
            "medium",
            ours,
            reference,
            "rouge-score",
            cold=True,
            note="stem cache emptied before each round",
        )
    )

    def ours_bleu(reference: str, hypothesis: str) -> float:
        return sentence_bleu(hypothesis, reference)

    def fresh_bleu(reference: str, hypothesis: str) -> object:
        return sacrebleu.sentence_bleu(hypothesis, [reference])

    for size in SIZES:
        rows.append(Case("BLEU (sentence)", size, ours_bleu, fresh_bleu, "sacrebleu.sentence_bleu"))
        rows.append(
            Case("BLEU (sentence)", size, ours_bleu, _bleu_reused(), "sacrebleu, one BLEU object")
        )
    return rows


def _timed(scorer: Scorer, pairs: Iterator[tuple[str, str]], budget: float) -> tuple[int, float]:
    """Score pairs until ``budget`` seconds of scoring are spent; returns (pairs, seconds)."""
    count = 0
    spent = 0.0
    while spent < budget or count < 2:
        reference, prediction = next(pairs)
        start = time.perf_counter()
        scorer(reference, prediction)
        spent += time.perf_counter() - start
        count += 1
    return count, spent


def _pairs(source: TextSource, tokens: int, newlines: bool) -> Iterator[tuple[str, str]]:
    while True:
        yield source.pair(tokens, newlines=newlines)


def measure(case: Case, source: TextSource, *, rounds: int, budget: float) -> Row:
    """Throughput of both sides of ``case``, each on its own new pairs."""
    tokens = SIZES[case.size]
    ours_pairs = _pairs(source, tokens, case.newlines)
    baseline_pairs = _pairs(source, tokens, case.newlines)
    _timed(case.ours, ours_pairs, 0.0)  # first-call costs (imports, compiled patterns)
    _timed(case.baseline, baseline_pairs, 0.0)
    ours = [0, 0.0]
    baseline = [0, 0.0]
    for _ in range(rounds):
        for side, scorer, pairs in (
            (baseline, case.baseline, baseline_pairs),
            (ours, case.ours, ours_pairs),
        ):
            if case.cold:
                clear_stem_cache()
            count, seconds = _timed(scorer, pairs, budget)
            side[0] += count
            side[1] += seconds
    return Row(
        case=case.case,
        size=f"{case.size} ({tokens} words)",
        ours=ours[0] / ours[1],
        baseline=baseline[0] / baseline[1],
        baseline_name=case.baseline_name,
        note=case.note,
    )


def run(quick: bool) -> Section:
    """Measure every case; ``quick`` only checks that it all runs (tiny budgets)."""
    source = TextSource(seed=2026)
    # Steady state of a long-running server: every word of the vocabulary stemmed once before.
    for word in source.words:
        tokenize(word, True)
    rounds, budget = (1, 0.005) if quick else (3, 0.8)
    rows = [measure(case, source, rounds=rounds, budget=budget) for case in cases()]
    bleu = [row.ratio for row in rows if row.case.startswith("BLEU")]
    notes = [
        "Pairs/s, one thread, in-process; every pair is new text (library caches cannot help); "
        f"{rounds} alternating rounds of ~{budget:g} s of scoring per side.",
        "Ours (evald.kernels) returns the same floats as the baseline library; "
        "tests/unit/kernels checks it pair by pair with ==.",
        "ROUGE: stems and token ids are cached (bounded); rows other than the 'cold' one start "
        "with the benchmark vocabulary's stems cached, as a long-running server would have them.",
        f"BLEU: ours is {min(bleu):.1f}x to {max(bleu):.1f}x sacrebleu"
        + (
            "."
            if min(bleu) >= 2
            else "; under 2x on some inputs, where the 13a tokenizer's regular expressions "
            "(the same in both, for identity) dominate."
        ),
    ]
    return Section(
        "metrics", "Metric throughput: evald kernels vs reference libraries", rows, notes
    )
