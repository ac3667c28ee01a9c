"""Trajectory metrics: the documented rules (docs/metrics/computed.md), case by case, with
hand-worked expected scores."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from evald.api import messages as m
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import CALL

Call = tuple[str, Any]  # (tool_name, tool_input); a non-str input is JSON-encoded, None = unset


def trajectory(*calls: Call) -> Any:
    """A Trajectory message; a tool_input that is not a str is encoded with json.dumps."""
    tool_calls = []
    for name, tool_input in calls:
        call = m.ToolCall(tool_name=name)
        if tool_input is not None:
            call.tool_input = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
        tool_calls.append(call)
    return m.Trajectory(tool_calls=tool_calls)


COMPARED = {
    "exact_match": (m.TrajectoryExactMatchInput, m.TrajectoryExactMatchInstance),
    "in_order_match": (m.TrajectoryInOrderMatchInput, m.TrajectoryInOrderMatchInstance),
    "any_order_match": (m.TrajectoryAnyOrderMatchInput, m.TrajectoryAnyOrderMatchInstance),
    "precision": (m.TrajectoryPrecisionInput, m.TrajectoryPrecisionInstance),
    "recall": (m.TrajectoryRecallInput, m.TrajectoryRecallInstance),
}
METRICS = list(COMPARED)


def evaluate_input(field: str, metric_input: Any) -> list[float]:
    result = asyncio.run(builtin().inputs[field].evaluate_input(metric_input, field, CALL))
    (values,) = [getattr(result, f.name) for f in result.DESCRIPTOR.fields]
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


def evaluate(metric: str, instances: list[dict[str, Any]]) -> list[float]:
    """Scores of ``trajectory_<metric>`` for instances given as field dicts."""
    input_cls, instance_cls = COMPARED[metric]
    metric_input = input_cls(instances=[instance_cls(**fields) for fields in instances])
    return evaluate_input(f"trajectory_{metric}_input", metric_input)


def scores(predicted: list[Call] | None, reference: list[Call] | None) -> dict[str, float]:
    """Every compared metric's score for one instance (None leaves the trajectory unset)."""
    fields = {}
    if predicted is not None:
        fields["predicted_trajectory"] = trajectory(*predicted)
    if reference is not None:
        fields["reference_trajectory"] = trajectory(*reference)
    return {metric: evaluate(metric, [fields])[0] for metric in METRICS}


A = ("search", {"q": "paris"})
B = ("book", {"hotel": "Ritz", "nights": 2})
C = ("pay", {"amount": 100})

# Each row: predicted, reference, then the expected exact / in-order / any-order / precision /
# recall, worked by hand from the documented rules.
CASES: list[tuple[Any, ...]] = [
    ("identical", [A, B], [A, B], 1, 1, 1, 1, 1),
    ("both empty", [], [], 1, 1, 1, 1, 1),
    ("both unset", None, None, 1, 1, 1, 1, 1),
    ("empty prediction", [], [A], 0, 0, 0, 0, 0),
    ("unset prediction", None, [A, B], 0, 0, 0, 0, 0),
    ("empty reference", [A], [], 0, 1, 1, 0, 0),
    ("unset reference", [A], None, 0, 1, 1, 0, 0),
    ("swapped", [B, A], [A, B], 0, 0, 1, 1, 1),
    ("extra call between", [A, C, B], [A, B], 0, 1, 1, 2 / 3, 1),
    ("extra call, swapped", [B, C, A], [A, B], 0, 0, 1, 2 / 3, 1),
    ("missing call", [A], [A, B], 0, 0, 0, 1, 1 / 2),
    ("disjoint", [C], [A, B], 0, 0, 0, 0, 0),
    ("one of two right", [A, C], [A, B], 0, 0, 0, 1 / 2, 1 / 2),
    ("repeat instead of other", [A, A], [A, B], 0, 0, 0, 1 / 2, 1 / 2),
    ("duplicate predicted", [A, A], [A], 0, 1, 1, 1 / 2, 1),
    ("duplicate reference", [A], [A, A], 0, 0, 0, 1, 1 / 2),
    ("duplicates both", [A, B, A], [A, A], 0, 1, 1, 2 / 3, 1),
    ("duplicates out of order", [B, A, A, B], [A, B, B], 0, 0, 1, 3 / 4, 1),
    ("in order with repeats", [A, B, A, B], [A, B, B], 0, 1, 1, 3 / 4, 1),
    ("other input", [("search", {"q": "rome"})], [A], 0, 0, 0, 0, 0),
    ("name case counts", [("Search", {"q": "paris"})], [A], 0, 0, 0, 0, 0),
    (
        "input key order ignored",
        [("f", '{"a": 1, "b": 2}')],
        [("f", '{"b":2,"a":1}')],
        1,
        1,
        1,
        1,
        1,
    ),
    ("input spacing ignored", [("f", '{ "a" : [1, 2] }')], [("f", '{"a":[1,2]}')], 1, 1, 1, 1, 1),
    ("input 1 vs 1.0", [("f", {"n": 1})], [("f", {"n": 1.0})], 1, 1, 1, 1, 1),
    ("input string vs number", [("f", {"n": "1"})], [("f", {"n": 1})], 0, 0, 0, 0, 0),
    ("input string case counts", [("f", {"q": "Paris"})], [("f", {"q": "paris"})], 0, 0, 0, 0, 0),
    ("unset input = {}", [("f", None)], [("f", {})], 1, 1, 1, 1, 1),
    ("blank input = {}", [("f", "  ")], [("f", "{}")], 1, 1, 1, 1, 1),
    ("{} vs null", [("f", "null")], [("f", "{}")], 0, 0, 0, 0, 0),
    ("non-JSON input as text", [("f", "city=Paris")], [("f", "city=Paris")], 1, 1, 1, 1, 1),
    ("non-JSON text exact", [("f", "city=Paris ")], [("f", "city=Paris")], 0, 0, 0, 0, 0),
    ("non-JSON text vs JSON string", [("f", "paris")], [("f", '"paris"')], 0, 0, 0, 0, 0),
    ("NaN input is text", [("f", '{"x": NaN}')], [("f", '{"x": NaN}')], 1, 1, 1, 1, 1),
    ("scalar JSON input", [("f", "42")], [("f", "42.0")], 1, 1, 1, 1, 1),
    (
        "out-of-range number is text",
        [("f", "1e99999999999999999999")],
        [("f", "1e99999999999999999999")],
        *[1] * 5,
    ),
    (
        "deep nesting is text",
        [("f", "[" * 5000 + "]" * 5000)],
        [("f", "[" * 5000 + "]" * 5000)],
        *[1] * 5,
    ),
]


@pytest.mark.parametrize(
    ("predicted", "reference", "expected"),
    [(c[1], c[2], dict(zip(METRICS, c[3:], strict=True))) for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_trajectory_metrics(
    predicted: list[Call] | None, reference: list[Call] | None, expected: dict[str, float]
) -> None:
    got = scores(predicted, reference)
    assert got == {k: pytest.approx(v, rel=1e-6, abs=1e-7) for k, v in expected.items()}


@pytest.mark.parametrize("metric", METRICS)
def test_scores_in_instance_order(metric: str) -> None:
    rows = [CASES[i] for i in (0, 3, 7, 10, 13)]
    instances = [
        {"predicted_trajectory": trajectory(*row[1]), "reference_trajectory": trajectory(*row[2])}
        for row in rows
    ]
    expected = [row[3 + METRICS.index(metric)] for row in rows]
    assert evaluate(metric, instances) == pytest.approx(expected, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("metric", METRICS)
def test_large_batch_keeps_order(metric: str) -> None:
    # Above INLINE_INSTANCES the batch is scored on a worker thread.
    instances = [
        {
            "predicted_trajectory": trajectory(*([A] if i % 2 else [C])),
            "reference_trajectory": trajectory(A),
        }
        for i in range(80)
    ]
    assert evaluate(metric, instances) == [float(i % 2) for i in range(80)]


@pytest.mark.parametrize("metric", METRICS)
def test_reference_call_without_name_is_invalid_argument(metric: str) -> None:
    good = {"predicted_trajectory": trajectory(A), "reference_trajectory": trajectory(A)}
    bad = {"predicted_trajectory": trajectory(A), "reference_trajectory": trajectory(A, ("", {}))}
    blank = {"predicted_trajectory": trajectory(), "reference_trajectory": trajectory(("  ", {}))}
    with pytest.raises(InvalidArgument) as caught:
        evaluate(metric, [good, bad, good, blank])
    prefix = f"trajectory_{metric}_input.instances"
    assert [v.field for v in caught.value.violations] == [
        f"{prefix}[1].reference_trajectory.tool_calls[1].tool_name",
        f"{prefix}[3].reference_trajectory.tool_calls[0].tool_name",
    ]
    assert "non-empty tool_name" in caught.value.violations[0].description


@pytest.mark.parametrize("metric", METRICS)
def test_predicted_call_without_name_just_misses(metric: str) -> None:
    (score,) = evaluate(
        metric,
        [{"predicted_trajectory": trajectory(("", {})), "reference_trajectory": trajectory(A)}],
    )
    assert score == 0.0


@pytest.mark.parametrize("metric", METRICS)
def test_no_instances_is_invalid_argument(metric: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        evaluate(metric, [])
    assert caught.value.violations[0].field == f"trajectory_{metric}_input.instances"


# ---------------------------------------------------------------- single tool use
SINGLE_CASES = [
    # (id, predicted calls or None for unset, tool_name, expected)
    ("present", [A, B], "book", 1.0),
    ("present twice", [A, A], "search", 1.0),
    ("absent", [A, B], "pay", 0.0),
    ("case counts", [A], "Search", 0.0),
    ("no prefix match", [A], "sear", 0.0),
    ("input irrelevant", [("pay", "not json")], "pay", 1.0),
    ("empty trajectory", [], "search", 0.0),
    ("unset trajectory", None, "search", 0.0),
]


def single(predicted: list[Call] | None, tool_name: str | None) -> list[float]:
    instance = m.TrajectorySingleToolUseInstance()
    if predicted is not None:
        instance.predicted_trajectory.CopyFrom(trajectory(*predicted))
    spec = m.TrajectorySingleToolUseSpec()
    if tool_name is not None:
        spec.tool_name = tool_name
    metric_input = m.TrajectorySingleToolUseInput(metric_spec=spec, instances=[instance])
    return evaluate_input("trajectory_single_tool_use_input", metric_input)


@pytest.mark.parametrize(
    ("predicted", "tool_name", "expected"),
    [c[1:] for c in SINGLE_CASES],
    ids=[c[0] for c in SINGLE_CASES],
)
def test_single_tool_use(predicted: list[Call] | None, tool_name: str, expected: float) -> None:
    assert single(predicted, tool_name) == [expected]


@pytest.mark.parametrize("tool_name", [None, "", "   "], ids=["unset", "empty", "blank"])
def test_single_tool_use_needs_tool_name(tool_name: str | None) -> None:
    with pytest.raises(InvalidArgument) as caught:
        single([A], tool_name)
    assert (
        caught.value.violations[0].field == "trajectory_single_tool_use_input.metric_spec.tool_name"
    )


# ---------------------------------------------------------------- properties
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
# Few names and inputs, so that random trajectories often share calls.
calls = st.tuples(
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from([{}, {"x": 1}, "free text"]) | json_values | st.text(max_size=10),
)
trajectories = st.lists(calls, max_size=6)


@settings(max_examples=120, deadline=None)
@given(predicted=trajectories, reference=trajectories)
def test_bounds_symmetry_and_implications(predicted: list[Call], reference: list[Call]) -> None:
    got = scores(predicted, reference)
    swapped = scores(reference, predicted)
    assert all(0.0 <= s <= 1.0 for s in got.values())
    assert got["exact_match"] == swapped["exact_match"]
    assert got["precision"] == swapped["recall"]
    assert got["recall"] == swapped["precision"]
    # exact ⇒ in order ⇒ any order ⇔ recall 1 (an empty reference has recall 0 unless both empty).
    assert got["exact_match"] <= got["in_order_match"] <= got["any_order_match"]
    if reference or not predicted:
        assert (got["any_order_match"] == 1.0) == (got["recall"] == 1.0)


@settings(max_examples=120, deadline=None)
@given(calls=trajectories)
def test_trajectory_against_itself_scores_one(calls: list[Call]) -> None:
    assert set(scores(calls, calls).values()) == {1.0}


@settings(max_examples=100, deadline=None)
@given(calls=trajectories, name=st.sampled_from(["a", "b", "c", "d"]))
def test_single_tool_use_is_membership(calls: list[Call], name: str) -> None:
    assert single(calls, name) == [1.0 if any(n == name for n, _ in calls) else 0.0]
