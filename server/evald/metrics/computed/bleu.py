"""bleu: sentence BLEU of the prediction against its one reference, on a 0..1 scale.

The score equals ``sacrebleu.sentence_bleu(prediction, [reference],
use_effective_order=spec.use_effective_order).score / 100``: sacrebleu's defaults, i.e. the
``13a`` tokenizer (mteval-v13a, as WMT uses), ``exp`` smoothing, n-grams up to 4, case-sensitive.
It is computed by :mod:`evald.kernels.bleu`, which gives the same floats as sacrebleu, faster
(``tests/unit/kernels`` and ``tests/unit/metrics/computed/test_bleu.py`` compare against
sacrebleu).
"""

from __future__ import annotations

from typing import Any

from evald.kernels.bleu import sentence_bleu
from evald.metrics.computed.base import TextMetric


class Bleu(TextMetric[bool]):
    """Sentence BLEU divided by 100; the option is ``use_effective_order``."""

    input_field = "bleu_input"
    result_field = "bleu_results"
    spec_fields = ("bleu_spec",)
    computation_type = "BLEU"

    TOKENIZE = "13a"
    """The tokenizer, sacrebleu's default (the one ``sacrebleu.sentence_bleu`` uses)."""
    SMOOTH_METHOD = "exp"
    """The smoothing, sacrebleu's default (the one ``sacrebleu.sentence_bleu`` uses)."""

    def options(self, spec: Any, path: str) -> bool:
        return bool(spec.use_effective_order)

    def score_text(self, prediction: str, reference: str, options: bool) -> float:
        """BLEU of ``prediction`` against ``reference`` in 0..1 (``options``: effective order)."""
        return sentence_bleu(prediction, reference, effective_order=options) / 100.0
