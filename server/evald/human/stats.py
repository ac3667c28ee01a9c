"""Agreement statistics for human ratings, implemented here (numpy only; scipy is not a runtime
dependency) and checked in the tests against independent implementations.

Every function answers a :class:`Stat`: a value, or None with the reason it cannot be computed
(no variance, too few raters or rows): never NaN, which JSON cannot carry.

References:

- Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. The coincidence-matrix
  form: alpha = 1 - D_o / D_e, with the nominal, ordinal and interval distance metrics.
- Cohen, J. (1960). A coefficient of agreement for nominal scales. kappa = (p_o - p_e) /
  (1 - p_e), p_e from each rater's own label frequencies.
- Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Each unit rated
  by the same number of raters (not necessarily the same raters).
- Spearman's rank correlation: Pearson's correlation of the ranks, ties given their mean rank.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

NOMINAL = "nominal"
ORDINAL = "ordinal"
INTERVAL = "interval"
LEVELS = (NOMINAL, ORDINAL, INTERVAL)


@dataclass(frozen=True)
class Stat:
    """A statistic's value, or None and why not; ``n`` counts what it was computed over."""

    value: float | None
    n: int = 0
    reason: str | None = None

    def json(self) -> dict[str, Any]:
        return {"value": self.value, "n": self.n, "reason": self.reason}


def _none(reason: str, n: int = 0) -> Stat:
    return Stat(None, n, reason)


def _finite(value: float, n: int, reason: str) -> Stat:
    return Stat(float(value), n) if np.isfinite(value) else _none(reason, n)


def krippendorff_alpha(units: Sequence[Sequence[Any]], level: str = NOMINAL) -> Stat:
    """Krippendorff's alpha of ``units``: each the values its raters gave (missing ones simply
    absent). Ordinal and interval values must be numbers. ``n`` is the number of pairable
    values (those in units with at least two)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}")
    pairable = [list(u) for u in units if len(u) >= 2]
    values = sorted({v for u in pairable for v in u})
    n = sum(len(u) for u in pairable)
    if n == 0:
        return _none("no unit has two or more ratings")
    if len(values) < 2:
        return _none("every rating has the same value: no variance", n)
    index = {v: i for i, v in enumerate(values)}
    size = len(values)
    coincidences = np.zeros((size, size))
    for unit in pairable:
        counts = np.zeros(size)
        for v in unit:
            counts[index[v]] += 1
        # Ordered pairs of values from different raters of the unit, weighted 1 / (m_u - 1).
        coincidences += (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
    totals = coincidences.sum(axis=1)
    delta = _distances(values, totals, level)
    observed = float((coincidences * delta).sum())
    expected = float((np.outer(totals, totals) * delta).sum()) / (n - 1)
    if expected == 0:
        return _none("no variance in the ratings", n)
    return _finite(1.0 - observed / expected, n, "not defined for these ratings")


def _distances(values: list[Any], totals: np.ndarray, level: str) -> np.ndarray:
    """The squared distance δ² between every two values."""
    size = len(values)
    if level == NOMINAL:
        nominal: np.ndarray = 1.0 - np.eye(size)
        return nominal
    numbers = np.asarray(values, dtype=float)
    if level == INTERVAL:
        interval: np.ndarray = np.subtract.outer(numbers, numbers) ** 2
        return interval
    # Ordinal: the values between c and k (both included) counted, minus half of c's and k's.
    cumulative = np.concatenate(([0.0], np.cumsum(totals)))
    delta = np.zeros((size, size))
    for c in range(size):
        for k in range(c + 1, size):
            between = cumulative[k + 1] - cumulative[c] - (totals[c] + totals[k]) / 2
            delta[c, k] = delta[k, c] = between**2
    return delta


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> Stat:
    """Cohen's kappa of two raters' labels of the same units (``first[i]`` and ``second[i]``
    label unit i)."""
    if len(first) != len(second):
        raise ValueError("both raters must label the same units")
    n = len(first)
    if n == 0:
        return _none("the two raters rated no unit in common")
    labels = sorted({*first, *second}, key=repr)
    observed = sum(1 for a, b in zip(first, second, strict=True) if a == b) / n
    expected = sum((first.count(c) / n) * (second.count(c) / n) for c in labels)
    if expected == 1:
        return _none("both raters gave one and the same label throughout: no variance", n)
    return _finite((observed - expected) / (1 - expected), n, "not defined for these ratings")


def fleiss_kappa(units: Sequence[Sequence[Hashable]]) -> Stat:
    """Fleiss' kappa of ``units`` (each the labels of its raters); only units with as many
    ratings as the most rated unit count (the statistic needs the same number per unit)."""
    if not units:
        return _none("no rated unit")
    m = max(len(u) for u in units)
    complete = [u for u in units if len(u) == m]
    if m < 2:
        return _none("each unit needs at least two ratings")
    labels = sorted({v for u in complete for v in u}, key=repr)
    index = {v: i for i, v in enumerate(labels)}
    table = np.zeros((len(complete), len(labels)))
    for row, unit in enumerate(complete):
        for v in unit:
            table[row, index[v]] += 1
    agreement = float((((table**2).sum(axis=1) - m) / (m * (m - 1))).mean())
    shares = table.sum(axis=0) / (len(complete) * m)
    expected = float((shares**2).sum())
    if expected == 1:
        return _none("every rating has the same label: no variance", len(complete))
    return _finite(
        (agreement - expected) / (1 - expected), len(complete), "not defined for these ratings"
    )


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values))
    sorted_values = values[order]
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> Stat:
    """Spearman's rank correlation of paired values (at least 3 pairs)."""
    if len(x) != len(y):
        raise ValueError("x and y must pair up")
    n = len(x)
    if n < 3:
        return _none("fewer than 3 rows have both a human rating and a metric score", n)
    rx, ry = _ranks(np.asarray(x, dtype=float)), _ranks(np.asarray(y, dtype=float))
    dx, dy = rx - rx.mean(), ry - ry.mean()
    scale = float(np.sqrt((dx**2).sum() * (dy**2).sum()))
    if scale == 0:
        which = "the human ratings" if (dx**2).sum() == 0 else "the metric scores"
        return _none(f"{which} do not vary", n)
    return _finite(float((dx * dy).sum()) / scale, n, "not defined for these values")
