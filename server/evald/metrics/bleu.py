"""bleu: sentence BLEU of the prediction against its one reference, on a 0..1 scale.

The score is ``sacrebleu.sentence_bleu(prediction, [reference],
use_effective_order=spec.use_effective_order).score / 100``: sacrebleu's defaults, i.e. the
``13a`` tokenizer (mteval-v13a, as WMT uses), ``exp`` smoothing, n-grams up to 4, case-sensitive.
"""

from __future__ import annotations

import threading
from typing import Any

from sacrebleu.metrics.base import Metric
from sacrebleu.metrics.bleu import BLEU

from evald.metrics.base import ComputedMetric


class _Scorers(threading.local):
    """One sacrebleu ``BLEU`` object per thread and effective-order setting.

    A ``BLEU`` object keeps state between calls (reference caches, ``num_refs``), so one must not
    be shared by requests scored at the same time in different worker threads.
    """

    def __init__(self) -> None:
        self.by_effective_order: dict[bool, BLEU] = {}


class Bleu(ComputedMetric[bool]):
    """Sentence BLEU (sacrebleu) divided by 100; the option is ``use_effective_order``."""

    input_field = "bleu_input"
    result_field = "bleu_results"

    TOKENIZE = "13a"
    """sacrebleu's default tokenizer, the one ``sacrebleu.sentence_bleu`` uses."""
    SMOOTH_METHOD = "exp"
    """sacrebleu's default smoothing, the one ``sacrebleu.sentence_bleu`` uses."""

    def __init__(self) -> None:
        self._scorers = _Scorers()

    def options(self, spec: Any, path: str) -> bool:
        return bool(spec.use_effective_order)

    def score(self, instance: Any, options: bool, path: str) -> float:
        return self.sentence_bleu(instance.prediction, instance.reference, options)

    def sentence_bleu(self, prediction: str, reference: str, effective_order: bool) -> float:
        """BLEU of ``prediction`` against ``reference`` in 0..1."""
        scorer = self._scorer(effective_order)
        # BLEU.sentence_score only logs a warning when effective order is off, then runs this;
        # calling it directly keeps the server log free of one warning per instance.
        result = Metric.sentence_score(scorer, prediction, [reference])
        return float(result.score) / 100.0

    def _scorer(self, effective_order: bool) -> BLEU:
        scorers = self._scorers.by_effective_order
        scorer = scorers.get(effective_order)
        if scorer is None:
            scorer = BLEU(
                lowercase=False,
                tokenize=self.TOKENIZE,
                smooth_method=self.SMOOTH_METHOD,
                effective_order=effective_order,
            )
            scorers[effective_order] = scorer
        return scorer
