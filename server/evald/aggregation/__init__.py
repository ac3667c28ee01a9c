"""Summary statistics over a dataset's scores (Vertex ``AggregationMetric`` values and more),
and the FMEval classification metrics over a dataset's labels."""

from evald.aggregation.classification import balanced_accuracy, precision, recall
from evald.aggregation.stats import AGGREGATIONS, aggregate, bootstrap_mean_ci, percentile
from evald.aggregation.summary import MetricSummary, summarize, win_rates

__all__ = [
    "AGGREGATIONS",
    "MetricSummary",
    "aggregate",
    "balanced_accuracy",
    "bootstrap_mean_ci",
    "percentile",
    "precision",
    "recall",
    "summarize",
    "win_rates",
]
