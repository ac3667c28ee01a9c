"""The agreement statistics against independent implementations (the krippendorff package,
scikit-learn, statsmodels, scipy), hand-worked cases, edge cases and a property test."""

from __future__ import annotations

import json
import math
from typing import Any, cast

import krippendorff
import numpy as np
import pytest
from evald.human import stats
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr  # type: ignore[import-untyped]
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]
from statsmodels.stats.inter_rater import (  # type: ignore[import-untyped]
    aggregate_raters,
    fleiss_kappa,
)


def _matrix(raters: int, units: int, seed: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 6, size=(raters, units)).astype(float)
    data[rng.random(data.shape) < missing] = np.nan
    return data


def _units(data: np.ndarray) -> list[list[float]]:
    return [[v for v in data[:, j] if not np.isnan(v)] for j in range(data.shape[1])]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize(
    ("raters", "units", "seed", "missing"),
    [
        (2, 10, 1, 0.0),
        (3, 25, 2, 0.2),
        (5, 40, 3, 0.4),
        (4, 8, 4, 0.0),
    ],
)
def test_alpha_matches_krippendorff_package(
    level: str, raters: int, units: int, seed: int, missing: float
) -> None:
    data = _matrix(raters, units, seed, missing)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=cast(Any, level))
    assert stats.krippendorff_alpha(_units(data), level).value == pytest.approx(expected)


def test_alpha_hand_worked() -> None:
    # Krippendorff (2011), nominal: two raters, units (a,a) (a,b) (b,b) (b,b): o_ab = o_ba = 1,
    # n_a = 3, n_b = 5, n = 8: alpha = 1 - (n - 1) * o_ab*2 / (2 * n_a * n_b) = 1 - 7*2/30.
    units = [["a", "a"], ["a", "b"], ["b", "b"], ["b", "b"]]
    assert stats.krippendorff_alpha(units).value == pytest.approx(1 - 14 / 30)
    assert stats.krippendorff_alpha([[1, 1], [2, 2], [3, 3]], "ordinal").value == 1.0


@pytest.mark.parametrize(("seed", "n", "labels"), [(1, 30, 3), (2, 12, 2), (3, 50, 5)])
def test_cohen_matches_sklearn(seed: int, n: int, labels: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = list(rng.integers(0, labels, n)), list(rng.integers(0, labels, n))
    assert stats.cohen_kappa(a, b).value == pytest.approx(cohen_kappa_score(a, b))


def test_cohen_hand_worked() -> None:
    # 10 units, agree on 7; rater 1 says up 6 times, rater 2 up 5 times:
    # p_o = .7, p_e = .6*.5 + .4*.5 = .5, kappa = .4.
    first = ["up"] * 6 + ["down"] * 4
    second = ["up"] * 4 + ["down"] * 2 + ["up"] * 1 + ["down"] * 3
    assert stats.cohen_kappa(first, second).value == pytest.approx(0.4)


@pytest.mark.parametrize(("seed", "units", "raters"), [(1, 20, 3), (2, 40, 2), (3, 15, 6)])
def test_fleiss_matches_statsmodels(seed: int, units: int, raters: int) -> None:
    data = np.random.default_rng(seed).integers(0, 3, size=(units, raters))
    expected = fleiss_kappa(aggregate_raters(data)[0], method="fleiss")
    assert stats.fleiss_kappa([list(u) for u in data]).value == pytest.approx(expected)


@pytest.mark.parametrize(("seed", "n"), [(1, 5), (2, 15), (3, 40)])
def test_spearman_matches_scipy(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = list(rng.integers(1, 5, n)), list(rng.random(n))  # ties in x
    assert stats.spearman(x, y).value == pytest.approx(spearmanr(x, y).statistic)


EDGES = [
    # (statistic, expected reason fragment)
    (lambda: stats.krippendorff_alpha([[1], [2]]), "two or more"),
    (lambda: stats.krippendorff_alpha([]), "two or more"),
    (lambda: stats.krippendorff_alpha([[3, 3], [3, 3]], "ordinal"), "variance"),
    (lambda: stats.cohen_kappa([], []), "no unit"),
    (lambda: stats.cohen_kappa(["up", "up"], ["up", "up"]), "variance"),
    (lambda: stats.fleiss_kappa([["a"], ["b"]]), "at least two"),
    (lambda: stats.fleiss_kappa([["a", "a"], ["a", "a"]]), "variance"),
    (lambda: stats.fleiss_kappa([]), "no rated"),
    (lambda: stats.spearman([1, 2], [1, 2]), "fewer than 3"),
    (lambda: stats.spearman([1, 1, 1], [1, 2, 3]), "human ratings"),
    (lambda: stats.spearman([1, 2, 3], [5, 5, 5]), "metric scores"),
]


@pytest.mark.parametrize(("compute", "reason"), EDGES)
def test_edge_cases_are_null_with_a_reason(compute: object, reason: str) -> None:
    found = compute()  # type: ignore[operator]
    assert found.value is None
    assert reason in found.reason
    json.dumps(found.json(), allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(1, 5), min_size=0, max_size=4), min_size=1, max_size=12),
    st.sampled_from(["nominal", "ordinal", "interval"]),
)
def test_alpha_property(units: list[list[int]], level: str) -> None:
    """Whatever the ratings: null with a reason, or a finite alpha <= 1 equal to the
    package's; and the same alpha whatever order each unit's ratings come in."""
    found = stats.krippendorff_alpha(units, level)
    if found.value is None:
        assert found.reason
        return
    assert math.isfinite(found.value)
    assert found.value <= 1 + 1e-9
    width = max(len(u) for u in units)
    data = np.full((width, len(units)), np.nan)
    for j, unit in enumerate(units):
        data[: len(unit), j] = unit
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=cast(Any, level))
    assert found.value == pytest.approx(expected, abs=1e-9)
    shuffled = stats.krippendorff_alpha([list(reversed(u)) for u in units], level)
    assert shuffled.value == pytest.approx(found.value)
