"""Reports from a fixed ratings table (golden/ratings.json) against golden files,
plus figures worked out by hand from that table."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from evald.human import report
from evald.human.mechanisms import MECHANISMS, Kind
from evald.human.store import Rating

GOLDEN = Path(__file__).parent / "golden"
TABLE = json.loads((GOLDEN / "ratings.json").read_text())
REWRITE = os.environ.get("EVALD_REWRITE_GOLDEN") == "1"
"""Set to write the golden files anew (then read the diff before committing it)."""


def _report(mechanism: str) -> dict[str, Any]:
    spec = TABLE["tasks"][mechanism]
    kind = Kind(mechanism, tuple(spec["models"]), 5, False)
    ratings = [
        Rating("t", row, rater, item, value, 0.0) for row, rater, item, value in spec["ratings"]
    ]
    return report.report(kind, 4, TABLE["raters"], 2, ratings)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_report_matches_golden(mechanism: str) -> None:
    found = _report(mechanism)
    path = GOLDEN / f"report_{mechanism}.json"
    text = json.dumps(found, indent=2, sort_keys=True, allow_nan=False) + "\n"
    if REWRITE:
        path.write_text(text)
    assert json.loads(text) == json.loads(path.read_text())


HAND = [
    # (mechanism, path into the report, value worked out from the table by hand)
    (
        "likert_comparison",
        ("preference_strength", "histogram"),
        {"1": 2, "2": 2, "3": 2, "4": 1, "5": 1},
    ),
    ("likert_comparison", ("preferred", "percent", "alpha"), 50.0),  # 1,2,2,1 of 8
    ("likert_comparison", ("preferred", "percent", "no_preference"), 25.0),
    ("choice_buttons", ("preferred", "percent", "alpha"), 50.0),
    ("choice_buttons", ("preferred", "counts"), {"alpha": 4, "beta": 4}),
    ("ordinal_rank", ("rank", "alpha", "histogram"), {"1": 4, "2": 3}),
    ("ordinal_rank", ("rank", "beta", "mean_rank"), 11 / 7),
    ("thumbs_up_down", ("thumbs", "alpha", "up_percent"), 4 / 6 * 100),
    ("thumbs_up_down", ("thumbs", "beta", "up"), 2),
    ("likert_individual", ("likert", "alpha", "mean"), 27 / 8),
    ("likert_individual", ("counts", "ratings_by_rater"), {"ann": 3, "bob": 3, "cat": 2}),
    ("likert_individual", ("counts", "rows_complete"), 4),
    ("ordinal_rank", ("counts", "rows_complete"), 3),  # row 3 has one rater of two
    # Choice: units (0: a a) (1: b a) (2: b b) (3: a b); Cohen's needs 2 raters (3 here).
    ("choice_buttons", ("agreement", "cohen_kappa", "value"), None),
    # Fleiss over 4 units of 2: P_i = 1, 0, 1, 0 -> 0.5; p = .5/.5 -> P_e = .5; kappa 0.
    ("choice_buttons", ("agreement", "fleiss_kappa", "value"), 0.0),
]


@pytest.mark.parametrize(("mechanism", "path", "expected"), HAND)
def test_figures_worked_by_hand(mechanism: str, path: tuple[str, ...], expected: Any) -> None:
    found: Any = _report(mechanism)
    for key in path:
        found = found[key]
    assert found == (pytest.approx(expected) if isinstance(expected, float) else expected)


def test_a_row_is_complete_once_every_model_is_rated() -> None:
    kind = Kind("thumbs_up_down", ("alpha", "beta"), 5, False)
    ratings = [
        Rating("t", 0, "ann", "alpha", "up", 0.0),  # ann rated one model of two
        Rating("t", 0, "bob", "alpha", "up", 0.0),
        Rating("t", 0, "bob", "beta", "down", 0.0),
        Rating("t", 1, "ann", "alpha", "up", 0.0),
        Rating("t", 1, "ann", "beta", "up", 0.0),
    ]
    counts = report.report(kind, 2, ["ann", "bob"], 1, ratings)["counts"]
    assert (counts["rows_rated"], counts["rows_complete"]) == (2, 2)
    counts = report.report(kind, 2, ["ann", "bob"], 2, ratings)["counts"]
    assert (counts["rows_rated"], counts["rows_complete"]) == (2, 0)
