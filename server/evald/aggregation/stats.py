"""The ``Metric.AggregationMetric`` values, defined over the scores of the rows that have one.

* AVERAGE: the arithmetic mean.
* MODE: the most frequent value; among equally frequent values, the smallest.
* STANDARD_DEVIATION, VARIANCE: the *sample* statistics (divisor n - 1, as ``statistics.stdev``
  / ``numpy.std(ddof=1)``); undefined (None) for fewer than two values.
* MINIMUM, MAXIMUM, MEDIAN (the mean of the two middle values for an even count).
* PERCENTILE_P90 / P95 / P99: linear interpolation between closest ranks (Hyndman & Fan type 7,
  numpy's default ``method="linear"``): position ``p / 100 * (n - 1)`` in the sorted values.

Every value is None for an empty set of scores. Errored rows never reach these functions.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

Aggregation = Callable[[Sequence[float]], float | None]


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean (``math.fsum`` for accuracy)."""
    return math.fsum(values) / len(values) if values else None


def mode(values: Sequence[float]) -> float | None:
    """Most frequent value; ties go to the smallest."""
    if not values:
        return None
    counts = Counter(values)
    top = max(counts.values())
    return min(v for v, c in counts.items() if c == top)


def variance(values: Sequence[float]) -> float | None:
    """Sample variance (n - 1); None for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    centre = math.fsum(values) / n
    return math.fsum((v - centre) ** 2 for v in values) / (n - 1)


def stdev(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1); None for fewer than two values."""
    found = variance(values)
    return None if found is None else math.sqrt(found)


def median(values: Sequence[float]) -> float | None:
    """The middle value, or the mean of the two middle values."""
    return percentile(values, 50.0)


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (0..100) by linear interpolation (numpy's default method)."""
    if not values:
        return None
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {p}")
    ordered = sorted(values)
    position = p / 100.0 * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    # a + f * (b - a), the form numpy uses, so equal neighbours give exactly that value.
    return ordered[low] + fraction * (ordered[high] - ordered[low])


def _percentile_of(p: float) -> Aggregation:
    def compute(values: Sequence[float]) -> float | None:
        return percentile(values, p)

    return compute


AGGREGATIONS: dict[str, Aggregation] = {
    "AVERAGE": mean,
    "MODE": mode,
    "STANDARD_DEVIATION": stdev,
    "VARIANCE": variance,
    "MINIMUM": lambda values: min(values) if values else None,
    "MAXIMUM": lambda values: max(values) if values else None,
    "MEDIAN": median,
    "PERCENTILE_P90": _percentile_of(90.0),
    "PERCENTILE_P95": _percentile_of(95.0),
    "PERCENTILE_P99": _percentile_of(99.0),
}
"""Every ``Metric.AggregationMetric`` name (except UNSPECIFIED) and how it is computed."""


def aggregate(name: str, values: Sequence[float]) -> float | None:
    """The ``AggregationMetric`` called ``name`` over ``values``; KeyError for an unknown name."""
    return AGGREGATIONS[name](values)


BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


def bootstrap_mean_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float] | None:
    """Percentile bootstrap confidence interval for the mean.

    ``resamples`` samples of ``len(values)`` drawn with replacement (``random.Random(seed)``, so
    the interval is reproducible); the bounds are the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` percentiles (linear interpolation) of the resampled means.
    None for an empty set.
    """
    n = len(values)
    if n == 0:
        return None
    rng = random.Random(seed)
    data = list(values)
    # Plain sum, not fsum: a resample mean only feeds a percentile, and sum is ~1.5x faster.
    means = [sum(rng.choices(data, k=n)) / n for _ in range(resamples)]
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = percentile(means, tail), percentile(means, 100.0 - tail)
    assert low is not None
    assert high is not None
    return low, high
