"""The AggregationMetric values against the standard library and numpy."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from evald.aggregation import AGGREGATIONS, aggregate, bootstrap_mean_ci, percentile, win_rates
from hypothesis import given, settings
from hypothesis import strategies as st

DATASETS = [
    [0.0, 1.0],
    [0.5],
    [1.0, 1.0, 0.0, 0.0, 0.5],
    [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    [3.0, -2.0, 7.5, 7.5, 0.25, 100.0, 42.0],
    [float(i % 7) / 7 for i in range(101)],
]


def reference(name: str, values: list[float]) -> float | None:
    """Each aggregation as numpy / statistics computes it (sample spread, numpy's linear
    percentile, smallest of the most common values)."""
    if name == "AVERAGE":
        return statistics.fmean(values)
    if name == "MODE":
        return min(statistics.multimode(values))
    if name == "STANDARD_DEVIATION":
        return statistics.stdev(values) if len(values) > 1 else None
    if name == "VARIANCE":
        return statistics.variance(values) if len(values) > 1 else None
    if name == "MINIMUM":
        return float(np.min(values))
    if name == "MAXIMUM":
        return float(np.max(values))
    if name == "MEDIAN":
        return statistics.median(values)
    q = {"PERCENTILE_P90": 90, "PERCENTILE_P95": 95, "PERCENTILE_P99": 99}[name]
    return float(np.percentile(values, q, method="linear"))


@pytest.mark.parametrize("name", sorted(AGGREGATIONS))
@pytest.mark.parametrize("values", DATASETS)
def test_matches_reference(name: str, values: list[float]) -> None:
    expected = reference(name, values)
    got = aggregate(name, values)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_every_vertex_value_is_served() -> None:
    from evald import api

    names = set(api.messages.Metric.AggregationMetric.keys()) - {"AGGREGATION_METRIC_UNSPECIFIED"}
    assert names == set(AGGREGATIONS)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=60,
    ),
    st.floats(min_value=0, max_value=100),
)
def test_percentile_matches_numpy(values: list[float], p: float) -> None:
    assert percentile(values, p) == pytest.approx(
        float(np.percentile(values, p)), rel=1e-9, abs=1e-6
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3), min_size=2, max_size=60))
def test_spread_matches_statistics(values: list[float]) -> None:
    assert aggregate("VARIANCE", values) == pytest.approx(
        statistics.variance(values), rel=1e-9, abs=1e-9
    )
    assert aggregate("STANDARD_DEVIATION", values) == pytest.approx(
        float(np.std(values, ddof=1)), rel=1e-9, abs=1e-9
    )


@pytest.mark.parametrize("name", sorted(AGGREGATIONS))
def test_empty_is_undefined(name: str) -> None:
    assert aggregate(name, []) is None


def test_bootstrap_is_seeded_and_sane() -> None:
    rng = np.random.default_rng(7)
    values = list(rng.normal(0.6, 0.2, size=400))
    first = bootstrap_mean_ci(values)
    assert first == bootstrap_mean_ci(values)  # same seed, same interval
    assert first != bootstrap_mean_ci(values, seed=1)
    assert first is not None
    low, high = first
    mean = statistics.fmean(values)
    assert low < mean < high
    # The normal-theory half width 1.96 s / sqrt(n); the bootstrap agrees within ~15%.
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    assert (high - low) / 2 == pytest.approx(half, rel=0.15)


def test_bootstrap_of_constant_data_is_a_point() -> None:
    assert bootstrap_mean_ci([0.25] * 30) == (0.25, 0.25)
    assert bootstrap_mean_ci([]) is None


WIN_RATE_CASES = [
    ([1.0, 1.0, 0.0, 0.5], {"candidate": 0.5, "baseline": 0.25, "tie": 0.25}),
    ([0.0, 0.0], {"candidate": 0.0, "baseline": 1.0, "tie": 0.0}),
    ([], {"candidate": 0.0, "baseline": 0.0, "tie": 0.0}),
]


@pytest.mark.parametrize(("scores", "expected"), WIN_RATE_CASES)
def test_win_rates(scores: list[float], expected: dict[str, float]) -> None:
    assert win_rates(scores) == expected
