"""One metric's summary over a dataset: what aggregation.json and the CLI report show.

Errored rows are counted apart (``errors``) and never enter a statistic: a score of 0.0 sent
with an error is not a zero score. NaN scores (NeMo's "no number found" and "malformed
arguments") are counted apart too (``nan``), as NeMo's aggregation counts them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evald.aggregation import classification
from evald.aggregation.stats import AGGREGATIONS, bootstrap_mean_ci

DEFAULT_AGGREGATIONS = ("AVERAGE", "STANDARD_DEVIATION")
"""Reported in ``aggregation_output`` when a metric asks for none (the SDK's mean and std)."""

PAIRWISE_CHOICES = {1.0: "candidate", 0.0: "baseline", 0.5: "tie"}
"""Pairwise scores as evald's Metric API gives them: 1 candidate wins, 0 baseline, 0.5 tie."""


@dataclass
class MetricSummary:
    """The statistics of one metric over the rows of a dataset."""

    metric: str
    count: int
    """Rows with a (finite) score."""
    errors: int
    """Rows where the metric returned an error (left out of every statistic)."""
    nan: int
    """Rows scored NaN (left out of every statistic)."""
    sum: float
    mean: float | None
    aggregations: dict[str, float | None]
    """Every ``AggregationMetric`` value by name (None where undefined)."""
    requested: tuple[str, ...]
    """The ``AggregationMetric`` names the metric asked for (or the defaults)."""
    ci95: tuple[float, float] | None
    """Seeded percentile-bootstrap 95% confidence interval of the mean."""
    win_rates: dict[str, float] | None = None
    """Pairwise metrics: share of scored rows won by candidate, baseline, or tied."""
    classification: dict[str, Any] | None = None
    dataset_scores: dict[str, float] = field(default_factory=dict)
    """Scores over the whole set of rows (not statistics of row scores): NeMo's corpus BLEU,
    FMEval's classification scores."""
    categories: dict[str, MetricSummary] | None = None
    """The same summary over the rows of each value of the dataset's ``category`` column."""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN and infinities become null)."""
        data: dict[str, Any] = {
            "metric": self.metric,
            "count": self.count,
            "errors": self.errors,
            "nan": self.nan,
            "sum": _finite(self.sum),
            "mean": _finite(self.mean),
            "aggregations": {k: _finite(v) for k, v in self.aggregations.items()},
            "requested": list(self.requested),
            "ci95": None if self.ci95 is None else [_finite(v) for v in self.ci95],
        }
        if self.win_rates is not None:
            data["win_rates"] = self.win_rates
        if self.classification is not None:
            data["classification"] = self.classification
        if self.dataset_scores:
            data["dataset_scores"] = {k: _finite(v) for k, v in self.dataset_scores.items()}
        if self.categories is not None:
            data["categories"] = {
                name: {k: v for k, v in summary.to_json().items() if k != "metric"}
                for name, summary in self.categories.items()
            }
        data.update(self.extra)
        return data


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def summarize(
    metric: str,
    scores: Sequence[float | None],
    requested: Sequence[str] = (),
    *,
    pairwise: bool = False,
) -> MetricSummary:
    """Summarize one metric; ``scores`` has None for each errored row."""
    values = [s for s in scores if s is not None and not math.isnan(s)]
    errors = sum(1 for s in scores if s is None)
    total = math.fsum(values)
    return MetricSummary(
        metric=metric,
        count=len(values),
        errors=errors,
        nan=len(scores) - errors - len(values),
        sum=total,
        mean=total / len(values) if values else None,
        aggregations={name: compute(values) for name, compute in AGGREGATIONS.items()},
        requested=tuple(requested) or DEFAULT_AGGREGATIONS,
        ci95=bootstrap_mean_ci(values),
        win_rates=win_rates(values) if pairwise else None,
    )


def win_rates(values: Sequence[float]) -> dict[str, float]:
    """Share of pairwise verdicts won by the candidate, the baseline, and ties (scores 1, 0,
    0.5); other scores count under ``other``."""
    counts = dict.fromkeys((*PAIRWISE_CHOICES.values(), "other"), 0)
    for value in values:
        counts[PAIRWISE_CHOICES.get(value, "other")] += 1
    n = len(values)
    return {k: (v / n if n else 0.0) for k, v in counts.items() if k != "other" or v}


def classification_report(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    pos_label: Any = "1",
    average: classification.Average = "micro",
) -> dict[str, Any]:
    """FMEval's dataset scores (accuracy, balanced accuracy, precision and recall under
    ``average``), and precision / recall under every averaging that applies."""
    report: dict[str, Any] = {"rows": len(y_true), "average": average}
    if not y_true:
        return report
    report["accuracy"] = sum(t == p for t, p in zip(y_true, y_pred, strict=True)) / len(y_true)
    if not classification.is_multilabel(y_true):
        report["balanced_accuracy"] = classification.balanced_accuracy(y_true, y_pred)
    for name, function in (
        ("precision", classification.precision),
        ("recall", classification.recall),
    ):
        values: dict[str, Any] = {}
        for each in classification.AVERAGES:
            try:
                value = function(y_true, y_pred, each, pos_label)
            except ValueError as exc:
                if each == average:
                    report[f"{name}_error"] = str(exc)
                continue  # e.g. binary with three labels: that averaging does not apply
            values[each] = (
                {str(k): v for k, v in value.items()} if isinstance(value, dict) else value
            )
        report[name] = values
        report[f"{name}_score"] = values.get(average)
    report["pos_label"] = pos_label
    return report


def classification_scores(report: dict[str, Any]) -> dict[str, float]:
    """The single-number FMEval scores of a classification report, by FMEval's names."""
    names = {
        "accuracy": "classification_accuracy_score",
        "balanced_accuracy": "balanced_accuracy_score",
        "precision_score": "precision_score",
        "recall_score": "recall_score",
    }
    return {
        fmeval: float(report[key])
        for key, fmeval in names.items()
        if isinstance(report.get(key), int | float)
    }
