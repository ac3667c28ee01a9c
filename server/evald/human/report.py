"""A task's report, from its ratings: FMEval's figures per mechanism, the counts, inter-rater
agreement, and agreement with a judge metric.

FMEval's final report gives, per mechanism: a histogram of ratings by preference strength
(comparative Likert), the percentage of ratings preferring each model (choice buttons; here also
for comparative Likert), a histogram of the ranks (ordinal rank), the percentage of thumbs up per
model (thumbs up/down), a histogram of the Likert ratings per model (individual Likert).
Percentages are of the ratings given, in 0..100, unrounded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from evald.human import stats
from evald.human.mechanisms import (
    CHOICE,
    LIKERT_COMPARISON,
    LIKERT_INDIVIDUAL,
    PAIR,
    RANK,
    THUMBS,
    TIE,
    UP,
    Kind,
)
from evald.human.store import Rating

NO_PREFERENCE = "no_preference"


def _percent(part: int, whole: int) -> float | None:
    return None if whole == 0 else 100.0 * part / whole


def _histogram(values: Sequence[int], points: int) -> dict[str, int]:
    return {str(p): sum(1 for v in values if v == p) for p in range(1, points + 1)}


def _mean(values: Sequence[float]) -> float | None:
    return None if not values else sum(values) / len(values)


def figures(kind: Kind, ratings: Sequence[Rating]) -> dict[str, Any]:
    """FMEval's figures of ``ratings`` for ``kind``'s mechanism."""
    a, b = (*kind.models, "")[:2]
    if kind.mechanism == LIKERT_INDIVIDUAL:
        per_model = {}
        for model in kind.models:
            values = [int(r.value) for r in ratings if r.item == model]
            per_model[model] = {
                "count": len(values),
                "histogram": _histogram(values, kind.scale),
                "mean": _mean([float(v) for v in values]),
            }
        return {"likert": per_model}
    if kind.mechanism == THUMBS:
        thumbs = {}
        for model in kind.models:
            given = [str(r.value) for r in ratings if r.item == model]
            up = sum(1 for v in given if v == UP)
            thumbs[model] = {
                "count": len(given),
                "up": up,
                "down": len(given) - up,
                "up_percent": _percent(up, len(given)),
            }
        return {"thumbs": thumbs}
    if kind.mechanism == LIKERT_COMPARISON:
        values = [int(r.value) for r in ratings]
        middle = (kind.scale + 1) / 2  # 1: strongly model A ... scale: strongly model B
        counts = {
            a: sum(1 for v in values if v < middle),
            b: sum(1 for v in values if v > middle),
            NO_PREFERENCE: sum(1 for v in values if v == middle),
        }
        return {
            "preference_strength": {
                "count": len(values),
                "histogram": _histogram(values, kind.scale),
            },
            "preferred": _shares(counts, len(values)),
        }
    if kind.mechanism == CHOICE:
        counts = {a: 0, b: 0, **({TIE: 0} if kind.allow_tie else {})}
        for r in ratings:
            counts[str(r.value)] += 1
        return {"preferred": _shares(counts, len(ratings))}
    assert kind.mechanism == RANK
    ranks = {}
    for model in kind.models:
        values = [int(r.value[model]) for r in ratings]
        ranks[model] = {
            "count": len(values),
            "histogram": _histogram(values, len(kind.models)),
            "mean_rank": _mean([float(v) for v in values]),
        }
    return {"rank": ranks}


def _shares(counts: Mapping[str, int], total: int) -> dict[str, Any]:
    return {
        "count": total,
        "counts": dict(counts),
        "percent": {k: _percent(v, total) for k, v in counts.items()},
    }


def _units(kind: Kind, ratings: Sequence[Rating]) -> dict[tuple[int, str], list[Any]]:
    """The rated units (row, item; for ranks: row, model) and their values, rater order."""
    units: dict[tuple[int, str], list[Any]] = defaultdict(list)
    for r in sorted(ratings, key=lambda r: (r.row, r.item, r.rater)):
        if kind.mechanism == RANK:
            for model in kind.models:
                units[(r.row, model)].append(int(r.value[model]))
        else:
            units[(r.row, r.item)].append(r.value)
    return units


def agreement(kind: Kind, ratings: Sequence[Rating], raters: Sequence[str]) -> dict[str, Any]:
    """Inter-rater agreement: Krippendorff's alpha (ordinal for Likert and ranks, nominal for
    thumbs and choices) and, for the categorical mechanisms, Cohen's kappa (exactly two raters,
    on the units both rated) and Fleiss' kappa (the units with the most ratings)."""
    units = _units(kind, ratings)
    categorical = kind.mechanism in (THUMBS, CHOICE)
    level = stats.NOMINAL if categorical else stats.ORDINAL
    found: dict[str, Any] = {
        "krippendorff_alpha": {
            "level": level,
            **stats.krippendorff_alpha(list(units.values()), level).json(),
        },
    }
    if not categorical:
        return found
    if len(raters) == 2:
        by_rater: dict[str, dict[tuple[int, str], Any]] = defaultdict(dict)
        for r in ratings:
            by_rater[r.rater][(r.row, r.item)] = r.value
        first, second = by_rater[raters[0]], by_rater[raters[1]]
        common = sorted(set(first) & set(second))
        kappa = stats.cohen_kappa([first[u] for u in common], [second[u] for u in common])
    else:
        kappa = stats.Stat(
            None, 0, f"Cohen's kappa needs exactly 2 raters; the task has {len(raters)}"
        )
    found["cohen_kappa"] = kappa.json()
    found["fleiss_kappa"] = stats.fleiss_kappa(list(units.values())).json()
    return found


def human_scores(kind: Kind, ratings: Sequence[Rating]) -> dict[str, dict[int, float]]:
    """Per-row mean human score, by series: per model for individual mechanisms (Likert value;
    thumbs up 1, down 0), and for comparative ones (series ``pair``) the preference for model A
    in 0..1 (choice: A 1, B 0, tie 0.5; rank: 1 when A ranks first; Likert: 1 strongly A, 0
    strongly B)."""
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    a = kind.models[0]
    for r in ratings:
        if kind.mechanism == LIKERT_INDIVIDUAL:
            sums[r.item][r.row].append(float(r.value))
        elif kind.mechanism == THUMBS:
            sums[r.item][r.row].append(1.0 if r.value == UP else 0.0)
        elif kind.mechanism == CHOICE:
            sums[PAIR][r.row].append(1.0 if r.value == a else 0.5 if r.value == TIE else 0.0)
        elif kind.mechanism == RANK:
            sums[PAIR][r.row].append(1.0 if r.value[a] == 1 else 0.0)
        else:
            sums[PAIR][r.row].append((kind.scale - int(r.value)) / (kind.scale - 1))
    return {
        series: {row: sum(v) / len(v) for row, v in rows.items()} for series, rows in sums.items()
    }


def judge_agreement(
    kind: Kind, ratings: Sequence[Rating], scores: Mapping[int, float]
) -> dict[str, Any]:
    """Spearman's correlation between the mean human score of each row and a metric's score of
    the same row (rows matched by index), per series of :func:`human_scores`."""
    found = {}
    for series, rows in sorted(human_scores(kind, ratings).items()):
        common = sorted(set(rows) & set(scores))
        found[series] = stats.spearman(
            [rows[i] for i in common], [scores[i] for i in common]
        ).json()
    return found


def report(
    kind: Kind,
    rows_total: int,
    raters: Sequence[str],
    raters_per_row: int,
    ratings: Sequence[Rating],
) -> dict[str, Any]:
    """The report of a task with ``rows_total`` rows from all its ``ratings``."""
    per_rater = {name: 0 for name in raters}
    rated: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in ratings:
        per_rater[r.rater] = per_rater.get(r.rater, 0) + 1
        rated[r.row][r.rater] += 1
    # A row is complete once enough raters rated every item of it (each model, or the pair).
    items = len(kind.items)
    complete = sum(
        1 for who in rated.values() if sum(n >= items for n in who.values()) >= raters_per_row
    )
    return {
        "mechanism": kind.mechanism,
        "models": list(kind.models),
        "counts": {
            "rows": rows_total,
            "ratings": len(ratings),
            "rows_rated": len(rated),
            "rows_complete": complete,
            "ratings_by_rater": per_rater,
        },
        **figures(kind, ratings),
        "agreement": agreement(kind, ratings, raters),
    }
