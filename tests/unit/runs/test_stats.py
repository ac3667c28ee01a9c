"""The runs' statistics, checked against numpy and hand-worked values."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from evald.aggregation import stats as aggregation_stats
from evald.runs import stats
from evald.runs.model import Row, row_of


def row(index: int, scores: dict[str, float | None], prompt: str = "", **extra: Any) -> Row:
    results = [
        {
            "metric": m,
            "score": s,
            "explanation": None,
            "error": None if s is not None else {"code": "INTERNAL", "message": "boom"},
        }
        for m, s in scores.items()
    ]
    return row_of({"row": index, "input": {"prompt": prompt, **extra}, "results": results}, index)


def bootstrap_by_hand(values: list[float], seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap as documented: 1000 resamples of Random(seed).choices, then
    numpy's percentiles 2.5 and 97.5 of the resample means."""
    rng = random.Random(seed)
    means = [np.mean(rng.choices(values, k=len(values))) for _ in range(1000)]
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


SCORES = [0.1, 0.4, 0.35, 0.8, 0.9, 0.15, 0.6, 0.75, 0.2, 0.5]


def test_summary_matches_numpy() -> None:
    found = stats.summary("m", [*SCORES, None, math.nan])
    assert found["n"] == 10
    assert (found["errors"], found["nan"]) == (1, 1)
    assert found["mean"] == pytest.approx(np.mean(SCORES))
    assert found["sd"] == pytest.approx(np.std(SCORES, ddof=1))
    assert (found["min"], found["max"]) == (0.1, 0.9)
    assert found["ci95"] == pytest.approx(bootstrap_by_hand(SCORES))
    low, high = found["ci95"]
    assert low < found["mean"] < high


SUMMARY_EDGES = [
    # (scores, mean, sd, ci95)
    ([], None, None, None),
    ([None, None], None, None, None),
    ([0.5], 0.5, None, [0.5, 0.5]),
    ([1.0, 1.0, 1.0], 1.0, 0.0, [1.0, 1.0]),  # no spread: the interval is the point
    ([0.0, 1.0], 0.5, math.sqrt(0.5), [0.0, 1.0]),  # resamples can be all 0 or all 1
]


@pytest.mark.parametrize(("scores", "mean", "sd", "ci95"), SUMMARY_EDGES)
def test_summary_edges(
    scores: list[float | None], mean: float | None, sd: float | None, ci95: list[float] | None
) -> None:
    found = stats.summary("m", scores)
    assert found["mean"] == (pytest.approx(mean) if mean is not None else None)
    assert found["sd"] == (pytest.approx(sd) if sd is not None else None)
    assert found["ci95"] == (pytest.approx(ci95) if ci95 is not None else None)


HISTOGRAMS = [
    # Scores within 0..1: ten bins over 0..1, the last one holding 1.0.
    ([0.0, 0.05, 0.5, 0.95, 1.0], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
     [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]),
    # Few distinct integers (a 1-5 rating): one bin per value.
    ([1, 2, 2, 5], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5], [1, 2, 0, 0, 1]),
    # One value outside 0..1: a single bin.
    ([7.5, 7.5], [7.5, 7.5], [2]),
    ([], [], []),
]  # fmt: skip


@pytest.mark.parametrize(("scores", "edges", "counts"), HISTOGRAMS)
def test_histogram(scores: list[float], edges: list[float], counts: list[int]) -> None:
    found = stats.histogram([float(s) for s in scores])
    assert found["edges"] == pytest.approx(edges)
    assert found["counts"] == counts
    assert sum(found["counts"]) == len(scores)


def test_histogram_of_a_wide_range_matches_numpy() -> None:
    scores = [float(v) for v in np.random.default_rng(3).normal(50, 20, 200)]
    counts, edges = np.histogram(scores, bins=10)
    found = stats.histogram(scores)
    assert found["edges"] == pytest.approx(list(edges))
    assert found["counts"] == list(counts)


def test_compare_paired() -> None:
    a = [row(i, {"m": s, "e": 1.0}, f"q{i}") for i, s in enumerate(SCORES)]
    shifted = [min(s + 0.1, 1.0) if i % 3 else s - 0.05 for i, s in enumerate(SCORES)]
    b = [row(i, {"m": s, "e": None}, f"q{i}") for i, s in enumerate(shifted)]
    stats.check_same_dataset(a, b)
    found = stats.compare(a, b)
    m, e = found["metrics"]
    diffs = [y - x for x, y in zip(SCORES, shifted, strict=True)]
    assert m["metric"] == "m"
    assert m["delta"] == pytest.approx(np.mean(diffs))
    assert m["ci95"] == pytest.approx(bootstrap_by_hand(diffs))
    assert m["mean_b"] - m["mean_a"] == pytest.approx(m["delta"])
    assert (m["wins"], m["ties"], m["losses"]) == (
        sum(d > 1e-9 for d in diffs),
        sum(abs(d) <= 1e-9 for d in diffs),
        sum(d < -1e-9 for d in diffs),
    )
    assert m["paired"] == 10
    # Every row of B erred on e: nothing to pair, and each row changed (an error appeared).
    assert (e["paired"], e["delta"], e["ci95"], e["mean_b"]) == (0, None, None, None)
    changes = [abs(d) + 1.0 for d in diffs]
    assert [c["index"] for c in found["changed"]] == sorted(
        range(10), key=lambda i: (-changes[i], i)
    )
    assert found["changed"][0]["change"] == pytest.approx(max(changes))


def test_compare_constant_shift_has_a_point_interval() -> None:
    a = [row(i, {"m": 0.5}) for i in range(5)]
    b = [row(i, {"m": 0.75}) for i in range(5)]
    (m,) = stats.compare(a, b)["metrics"]
    assert (m["delta"], m["ci95"], m["wins"]) == (0.25, [0.25, 0.25], 5)


MISMATCHES = [
    ([row(0, {"m": 1.0}, "a")], [], "1 and 0 rows"),
    ([row(0, {"m": 1.0}, "a")], [row(0, {"m": 1.0}, "b")], "row 0 has another prompt"),
]


@pytest.mark.parametrize(("a", "b", "message"), MISMATCHES)
def test_mismatch(a: list[Row], b: list[Row], message: str) -> None:
    with pytest.raises(stats.Mismatch, match=message):
        stats.check_same_dataset(a, b)


def test_categories_and_error_groups() -> None:
    rows = [
        row(0, {"m": 1.0}, category="x"),
        row(1, {"m": 0.0}, category="x"),
        row(2, {"m": None}, category="y"),
        row(3, {"m": 0.5}),
    ]
    found = stats.run_statistics(rows)
    assert [(c["category"], c["rows"], c["metrics"][0]["mean"]) for c in found["categories"]] == [
        ("x", 2, 0.5),
        ("y", 1, None),
    ]
    assert found["error_groups"] == [
        {"metric": "m", "code": "INTERNAL", "message": "boom", "count": 1, "rows": [2]}
    ]
    assert found["summary"][0]["mean"] == pytest.approx(0.5)
    assert found["rows_with_errors"] == 1


@pytest.mark.parametrize(
    "values",
    [
        [0.5],
        SCORES,
        [float(v) for v in np.random.default_rng(7).random(1001)],
        [float(v) for v in np.random.default_rng(8).integers(1, 6, 3000)],
        [1e6, -3.0, 0.0, 2.5],
    ],
    ids=["one", "ten", "1001 uniform", "3000 ratings", "mixed"],
)
def test_fast_bootstrap_draws_the_same_resamples(values: list[float]) -> None:
    assert stats.bootstrap_mean_ci(values) == pytest.approx(
        aggregation_stats.bootstrap_mean_ci(values), rel=1e-12, abs=1e-12
    )
