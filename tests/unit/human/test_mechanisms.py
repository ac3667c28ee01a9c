"""Which ratings each mechanism accepts, which tasks it accepts, and deterministic assignment."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.human.mechanisms import Kind, check_kind
from evald.human.service import assigned

TWO = ("alpha", "beta")
LIKERT_C = Kind("likert_comparison", TWO)
CHOICE = Kind("choice_buttons", TWO)
CHOICE_TIE = Kind("choice_buttons", TWO, allow_tie=True)
RANK = Kind("ordinal_rank", TWO)
THUMBS = Kind("thumbs_up_down", TWO)
LIKERT_I = Kind("likert_individual", ("alpha",), scale=7)

VALUES = [
    # (kind, value, accepted)
    (LIKERT_C, 1, True),
    (LIKERT_C, 5, True),
    (LIKERT_C, 0, False),
    (LIKERT_C, 6, False),
    (LIKERT_C, 2.5, False),
    (LIKERT_C, True, False),
    (LIKERT_C, "3", False),
    (LIKERT_I, 7, True),
    (LIKERT_I, 8, False),
    (CHOICE, "alpha", True),
    (CHOICE, "beta", True),
    (CHOICE, "tie", False),
    (CHOICE, "A", False),
    (CHOICE_TIE, "tie", True),
    (RANK, {"alpha": 1, "beta": 2}, True),
    (RANK, {"alpha": 2, "beta": 1}, True),
    (RANK, {"alpha": 1, "beta": 1}, False),
    (RANK, {"alpha": 1}, False),
    (RANK, {"alpha": 1, "beta": 3}, False),
    (RANK, {"alpha": 1, "beta": 2, "x": 3}, False),
    (RANK, [1, 2], False),
    (RANK, {"alpha": True, "beta": 2}, False),
    (THUMBS, "up", True),
    (THUMBS, "down", True),
    (THUMBS, True, False),
    (THUMBS, "meh", False),
]


@pytest.mark.parametrize(("kind", "value", "accepted"), VALUES)
def test_values(kind: Kind, value: Any, accepted: bool) -> None:
    if accepted:
        assert kind.check_value(value) == value
    else:
        with pytest.raises(InvalidArgument) as caught:
            kind.check_value(value)
        assert caught.value.violations[0].field == "value"


ITEMS = [
    # (kind, model given, item or None for refused)
    (LIKERT_C, None, "pair"),
    (LIKERT_C, "alpha", None),
    (THUMBS, "beta", "beta"),
    (THUMBS, None, None),
    (THUMBS, "gamma", None),
    (LIKERT_I, None, "alpha"),
]


@pytest.mark.parametrize(("kind", "model", "item"), ITEMS)
def test_items(kind: Kind, model: Any, item: str | None) -> None:
    if item is not None:
        assert kind.check_item(model) == item
    else:
        with pytest.raises(InvalidArgument):
            kind.check_item(model)


TASKS = [
    # (mechanism, models, scale, allow_tie, field at fault or None)
    ("choice_buttons", ["a", "b"], None, True, None),
    ("choice_buttons", ["a"], None, None, "models"),
    ("ordinal_rank", ["a", "b", "c"], None, None, "models"),
    ("likert_comparison", ["a"], None, None, "models"),
    ("thumbs_up_down", ["a"], None, None, None),
    ("thumbs_up_down", ["a", "b"], None, None, None),  # FMEval: one or more models
    ("likert_individual", ["a", "b", "c"], None, None, "models"),
    ("likert_individual", ["a"], 2, None, "scale"),
    ("likert_individual", ["a"], 11, None, "scale"),
    ("likert_individual", ["a"], 7, None, None),
    ("thumbs_up_down", ["a"], None, True, "allow_tie"),
    ("stars", ["a"], None, None, "mechanism"),
]


@pytest.mark.parametrize(("mechanism", "models", "scale", "tie", "field"), TASKS)
def test_tasks(mechanism: str, models: list[str], scale: Any, tie: Any, field: str | None) -> None:
    if field is None:
        check_kind(mechanism, models, scale, tie)
        return
    with pytest.raises(InvalidArgument) as caught:
        check_kind(mechanism, models, scale, tie)
    assert caught.value.violations[0].field == field


@pytest.mark.parametrize(
    ("raters", "per_row", "rows"), [(3, 2, 9), (4, 1, 8), (5, 3, 10), (2, 2, 5)]
)
def test_assignment_is_deterministic_distinct_and_even(
    raters: int, per_row: int, rows: int
) -> None:
    names = [f"r{i}" for i in range(raters)]
    plan = [assigned(i, names, per_row) for i in range(rows)]
    assert plan == [assigned(i, names, per_row) for i in range(rows)]
    assert all(len(set(who)) == per_row for who in plan)
    load = Counter(name for who in plan for name in who)
    assert max(load.values()) - min(load.values()) <= per_row
    assert assigned(0, ["a", "b", "c"], 2) == ["a", "b"]
    assert assigned(1, ["a", "b", "c"], 2) == ["c", "a"]
