"""exact_match: 1.0 when prediction and reference are the same string, else 0.0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evald.metrics.computed.base import TextMetric


class ExactMatch(TextMetric[None]):
    """Exact string equality, no normalisation (whitespace and case count)."""

    input_field = "exact_match_input"
    result_field = "exact_match_results"
    spec_fields = ("exact_match_spec",)
    computation_type = "EXACT_MATCH"

    def options(self, spec: Any, path: str) -> None:
        return None

    def score_text(self, prediction: str, reference: str, options: None) -> float:
        return 1.0 if prediction == reference else 0.0

    def score_batch(self, instances: Sequence[Any], options: None, path: str) -> list[float]:
        return [1.0 if i.prediction == i.reference else 0.0 for i in instances]
