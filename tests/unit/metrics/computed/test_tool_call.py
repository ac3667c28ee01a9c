"""Tool-call metrics: the documented rules (docs/metrics/computed.md), case by case, with
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


def payload(*calls: tuple[str, Any], content: str = "") -> str:
    """A payload JSON string; each call is (name, arguments); arguments None leaves the key out."""
    items = []
    for name, args in calls:
        item: dict[str, Any] = {"name": name}
        if args is not None:
            item["arguments"] = args
        items.append(item)
    return json.dumps({"content": content, "tool_calls": items})


INPUTS = {
    "tool_call_valid": (m.ToolCallValidInput, m.ToolCallValidSpec, m.ToolCallValidInstance),
    "tool_name_match": (m.ToolNameMatchInput, m.ToolNameMatchSpec, m.ToolNameMatchInstance),
    "tool_parameter_key_match": (
        m.ToolParameterKeyMatchInput,
        m.ToolParameterKeyMatchSpec,
        m.ToolParameterKeyMatchInstance,
    ),
    "tool_parameter_kv_match": (
        m.ToolParameterKVMatchInput,
        m.ToolParameterKVMatchSpec,
        m.ToolParameterKVMatchInstance,
    ),
}


def evaluate(metric: str, pairs: list[dict[str, str]], **spec: Any) -> list[float]:
    """Run the registered handler of ``metric`` on instances built from ``pairs``."""
    input_cls, spec_cls, instance_cls = INPUTS[metric]
    metric_input = input_cls(
        metric_spec=spec_cls(**spec), instances=[instance_cls(**pair) for pair in pairs]
    )
    handler = builtin().inputs[f"{metric}_input"]
    result = asyncio.run(handler.evaluate_input(metric_input, f"{metric}_input", CALL))
    (values,) = [getattr(result, f.name) for f in result.DESCRIPTOR.fields]
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


def score(metric: str, prediction: str, reference: str, **spec: Any) -> float:
    (value,) = evaluate(metric, [{"prediction": prediction, "reference": reference}], **spec)
    return value


def errors(metric: str, pairs: list[dict[str, str]], **spec: Any) -> list[tuple[str, str]]:
    """The (field, description) violations the handler reports for ``pairs``."""
    with pytest.raises(InvalidArgument) as caught:
        evaluate(metric, pairs, **spec)
    return [(v.field, v.description) for v in caught.value.violations]


WEATHER = payload(("get_weather", {"city": "Paris"}))

# ---------------------------------------------------------------- tool_call_valid
VALID_CASES = [
    # (id, prediction, expected)
    ("one call", WEATHER, 1.0),
    ("two calls", payload(("a", {}), ("b", {"x": 1})), 1.0),
    ("arguments key absent", payload(("ping", None)), 1.0),
    (
        "arguments null",
        payload(("ping", None)).replace('"ping"}', '"ping", "arguments": null}'),
        1.0,
    ),
    ("arguments as JSON string", payload(("f", json.dumps({"x": 1}))), 1.0),
    ("arguments empty string", payload(("f", "")), 1.0),
    ("no content key", json.dumps({"tool_calls": [{"name": "f"}]}), 1.0),
    ("unknown keys ignored", json.dumps({"role": "model", "tool_calls": [{"name": "f"}]}), 1.0),
    ("zero calls", payload(content="Sunny"), 0.0),
    ("tool_calls key absent", json.dumps({"content": "Sunny"}), 0.0),
    ("tool_calls null", json.dumps({"content": "x", "tool_calls": None}), 0.0),
    ("plain text", "It is sunny in Paris.", 0.0),
    ("empty string", "", 0.0),
    ("whitespace only", "  \n", 0.0),
    ("top-level array", json.dumps([{"name": "f"}]), 0.0),
    ("tool_calls is an object", json.dumps({"tool_calls": {"name": "f"}}), 0.0),
    ("call is a string", json.dumps({"tool_calls": ["f"]}), 0.0),
    ("call without name", json.dumps({"tool_calls": [{"arguments": {}}]}), 0.0),
    ("empty name", payload(("", {})), 0.0),
    ("blank name", payload(("  ", {})), 0.0),
    ("name not a string", json.dumps({"tool_calls": [{"name": 5}]}), 0.0),
    ("arguments an array", payload(("f", [1, 2])), 0.0),
    ("arguments a number", payload(("f", 3)), 0.0),
    ("arguments string not JSON", payload(("f", "city=Paris")), 0.0),
    ("arguments string holds an array", payload(("f", "[1]")), 0.0),
    ("NaN is not JSON", '{"tool_calls": [{"name": "f", "arguments": {"x": NaN}}]}', 0.0),
    ("one good call, one bad", json.dumps({"tool_calls": [{"name": "f"}, {"name": ""}]}), 0.0),
    ("truncated JSON", WEATHER[:-2], 0.0),
]


@pytest.mark.parametrize(
    ("prediction", "expected"), [c[1:] for c in VALID_CASES], ids=[c[0] for c in VALID_CASES]
)
def test_tool_call_valid(prediction: str, expected: float) -> None:
    assert score("tool_call_valid", prediction, "") == expected


def test_tool_call_valid_ignores_reference() -> None:
    # Reference neither required nor parsed: absent, garbage and valid all score the same.
    pairs = [
        {"prediction": WEATHER},
        {"prediction": WEATHER, "reference": "not json"},
        {"prediction": "text", "reference": WEATHER},
    ]
    assert evaluate("tool_call_valid", pairs) == [1.0, 1.0, 0.0]


def test_tool_call_valid_requires_prediction() -> None:
    assert errors("tool_call_valid", [{"reference": WEATHER}]) == [
        ("tool_call_valid_input.instances[0].prediction", "required field 'prediction' is missing")
    ]


# ---------------------------------------------------------------- tool_name_match
NAME_CASES = [
    # (id, prediction, reference, expected)
    ("same name", WEATHER, WEATHER, 1.0),
    ("different name", payload(("get_time", {"city": "Paris"})), WEATHER, 0.0),
    ("name case counts", payload(("Get_Weather", {"city": "Paris"})), WEATHER, 0.0),
    ("same name, other arguments", payload(("get_weather", {"zip": 1})), WEATHER, 1.0),
    ("two calls in order", payload(("a", {}), ("b", {})), payload(("a", {}), ("b", {})), 1.0),
    ("two calls swapped", payload(("b", {}), ("a", {})), payload(("a", {}), ("b", {})), 0.0),
    ("extra predicted call", payload(("a", {}), ("b", {})), payload(("a", {})), 0.0),
    ("missing predicted call", payload(("a", {})), payload(("a", {}), ("b", {})), 0.0),
    ("both without calls", payload(content="hi"), payload(content="hello"), 1.0),
    ("reference without tool_calls key", payload(), json.dumps({"content": "x"}), 1.0),
    ("prediction without calls", payload(), WEATHER, 0.0),
    ("reference without calls", WEATHER, payload(), 0.0),
    ("malformed prediction, empty reference", "no tools needed", payload(), 0.0),
    ("malformed prediction", "{", WEATHER, 0.0),
]


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [c[1:] for c in NAME_CASES],
    ids=[c[0] for c in NAME_CASES],
)
def test_tool_name_match(prediction: str, reference: str, expected: float) -> None:
    assert score("tool_name_match", prediction, reference) == expected


# ---------------------------------------------------------------- tool_parameter_key_match
KEY_CASES = [
    # (id, prediction, reference, expected = shared names / all names, averaged over positions)
    ("same keys", payload(("f", {"a": 1, "b": 2})), payload(("f", {"a": 1, "b": 2})), 1.0),
    ("values ignored", payload(("f", {"a": 9, "b": "x"})), payload(("f", {"a": 1, "b": 2})), 1.0),
    ("one of two keys", payload(("f", {"a": 1})), payload(("f", {"a": 1, "b": 2})), 1 / 2),
    (
        "one extra key",
        payload(("f", {"a": 1, "b": 2, "c": 3})),
        payload(("f", {"a": 1, "b": 2})),
        2 / 3,
    ),
    (
        "one shared of three",
        payload(("f", {"a": 1, "c": 3})),
        payload(("f", {"a": 1, "b": 2})),
        1 / 3,
    ),
    ("disjoint keys", payload(("f", {"x": 1})), payload(("f", {"a": 1})), 0.0),
    ("key case counts", payload(("f", {"A": 1})), payload(("f", {"a": 1})), 0.0),
    ("neither has arguments", payload(("f", None)), payload(("f", {})), 1.0),
    ("prediction lacks arguments", payload(("f", {})), payload(("f", {"a": 1})), 0.0),
    ("other tool, same keys", payload(("g", {"a": 1})), payload(("f", {"a": 1})), 0.0),
    ("string arguments", payload(("f", '{"a": 1, "b": 2}')), payload(("f", {"b": 0, "a": 0})), 1.0),
    (
        "two calls, one half",
        payload(("f", {"a": 1, "b": 2}), ("g", {"x": 1})),
        payload(("f", {"a": 1}), ("g", {"x": 1})),
        (1 / 2 + 1) / 2,
    ),
    (
        "missing second call",
        payload(("f", {"a": 1})),
        payload(("f", {"a": 1}), ("g", {"x": 1})),
        1 / 2,
    ),
    (
        "extra third call",
        payload(("f", {"a": 1}), ("g", {"x": 1}), ("h", {})),
        payload(("f", {"a": 1}), ("g", {"x": 1})),
        2 / 3,
    ),
    (
        "order counts",
        payload(("g", {"x": 1}), ("f", {"a": 1})),
        payload(("f", {"a": 1}), ("g", {"x": 1})),
        0.0,
    ),
    ("both without calls", payload(), payload(), 1.0),
    ("prediction without calls", payload(), payload(("f", {"a": 1})), 0.0),
    ("malformed prediction", "f(a=1)", payload(("f", {"a": 1})), 0.0),
]


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [c[1:] for c in KEY_CASES],
    ids=[c[0] for c in KEY_CASES],
)
def test_tool_parameter_key_match(prediction: str, reference: str, expected: float) -> None:
    assert score("tool_parameter_key_match", prediction, reference) == pytest.approx(
        expected, rel=1e-6, abs=1e-7
    )


# ---------------------------------------------------------------- tool_parameter_kv_match
VALUE_CASES = [
    # (id, predicted value, reference value, non-strict score, strict score)
    ("identical string", "Paris", "Paris", 1.0, 1.0),
    ("case", "paris", "Paris", 1.0, 0.0),
    ("outer whitespace", " Paris ", "Paris", 1.0, 0.0),
    ("inner whitespace run", "New  York", "new york", 1.0, 0.0),
    ("tab and newline", "New\tYork\n", "New York", 1.0, 0.0),
    ("unicode NFC vs NFD", "caf\u00e9", "cafe\u0301", 1.0, 0.0),
    ("unicode casefold", "STRASSE", "straße", 1.0, 0.0),
    ("different words", "Paris", "London", 0.0, 0.0),
    ("int vs string", 5, "5", 1.0, 0.0),
    ("int vs float", 5, 5.0, 1.0, 1.0),
    ("string float vs int", "5.0", 5, 1.0, 0.0),
    ("exponent vs int", 1e3, 1000, 1.0, 1.0),
    ("string exponent vs int", "1E3", 1000, 1.0, 0.0),
    ("decimal string", 0.1, "0.1", 1.0, 0.0),
    ("leading zero is text", "05", 5, 0.0, 0.0),
    ("plus sign is text", "+5", 5, 0.0, 0.0),
    ("big ints exact", 12345678901234567890, 12345678901234567891, 0.0, 0.0),
    ("negative zero", -0.0, 0, 1.0, 1.0),
    ("bool vs string", True, "true", 1.0, 0.0),
    ("bool vs capitalised string", True, "True", 1.0, 0.0),
    ("bool is not a number", True, 1, 0.0, 0.0),
    ("false vs true", False, True, 0.0, 0.0),
    ("null vs string", None, "null", 1.0, 0.0),
    ("null vs empty string", None, "", 0.0, 0.0),
    ("null vs null", None, None, 1.0, 1.0),
    ("array order counts", [1, 2], [2, 1], 0.0, 0.0),
    ("array loose elements", [1, "a"], ["1", "A"], 1.0, 0.0),
    ("array length", [1], [1, 1], 0.0, 0.0),
    ("object key order ignored", {"a": 1, "b": 2}, {"b": 2, "a": 1}, 1.0, 1.0),
    ("object loose values", {"x": "A"}, {"x": "a"}, 1.0, 0.0),
    ("object key case counts", {"X": 1}, {"x": 1}, 0.0, 0.0),
    ("object vs its JSON text", {"a": 1}, '{"a": 1}', 0.0, 0.0),
    (
        "huge exponent string stays text",
        "1E999999999999999999999",
        "1e999999999999999999999",
        1.0,
        0.0,
    ),
]


@pytest.mark.parametrize(
    ("predicted", "reference", "loose", "strict"),
    [c[1:] for c in VALUE_CASES],
    ids=[c[0] for c in VALUE_CASES],
)
def test_kv_value_comparison(predicted: Any, reference: Any, loose: float, strict: float) -> None:
    prediction = payload(("f", {"v": predicted}))
    ref = payload(("f", {"v": reference}))
    assert score("tool_parameter_kv_match", prediction, ref) == loose
    assert score("tool_parameter_kv_match", prediction, ref, use_strict_string_match=True) == strict


KV_CASES = [
    # (id, prediction, reference, non-strict, strict) = equal-valued shared names / all names
    ("all equal", WEATHER, WEATHER, 1.0, 1.0),
    (
        "one of two values",
        payload(("f", {"city": "Paris", "days": 3})),
        payload(("f", {"city": "Paris", "days": 4})),
        1 / 2,
        1 / 2,
    ),
    (
        "missing key",
        payload(("f", {"city": "Paris"})),
        payload(("f", {"city": "Paris", "days": 3})),
        1 / 2,
        1 / 2,
    ),
    (
        "loose value, extra and missing key",
        payload(("f", {"city": "paris", "unit": "C"})),
        payload(("f", {"city": "Paris", "days": 3})),
        1 / 3,
        0.0,
    ),
    ("other tool", payload(("g", {"city": "Paris"})), WEATHER, 0.0, 0.0),
    ("neither has arguments", payload(("f", {})), payload(("f", "")), 1.0, 1.0),
    (
        "string arguments",
        payload(("f", '{"n": "5", "s": "a"}')),
        payload(("f", {"n": 5, "s": "a"})),
        1.0,
        1 / 2,
    ),
    (
        "two calls",
        payload(("f", {"a": 1}), ("g", {"x": "Y", "z": 1})),
        payload(("f", {"a": 1}), ("g", {"x": "y", "z": 2})),
        (1 + 1 / 2) / 2,
        (1 + 0) / 2,
    ),
    (
        "duplicate key: last wins",
        payload(("f", '{"a": 1, "a": 2}')),
        payload(("f", {"a": 2})),
        1.0,
        1.0,
    ),
    ("both without calls", payload(), payload(), 1.0, 1.0),
    ("reference without calls", WEATHER, payload(), 0.0, 0.0),
    ("malformed prediction", '{"tool_calls": 1}', WEATHER, 0.0, 0.0),
]


@pytest.mark.parametrize(
    ("prediction", "reference", "loose", "strict"),
    [c[1:] for c in KV_CASES],
    ids=[c[0] for c in KV_CASES],
)
def test_tool_parameter_kv_match(
    prediction: str, reference: str, loose: float, strict: float
) -> None:
    assert score("tool_parameter_kv_match", prediction, reference) == pytest.approx(
        loose, rel=1e-6, abs=1e-7
    )
    strict_score = score(
        "tool_parameter_kv_match", prediction, reference, use_strict_string_match=True
    )
    assert strict_score == pytest.approx(strict, rel=1e-6, abs=1e-7)


# ---------------------------------------------------------------- malformed references
COMPARISONS = ["tool_name_match", "tool_parameter_key_match", "tool_parameter_kv_match"]
BAD_REFERENCES = [
    # (id, reference, words the description must contain)
    ("empty", "", "is empty"),
    ("not JSON", "get_weather(city='Paris')", "not valid JSON"),
    ("NaN", '{"tool_calls": [{"name": "f", "arguments": {"x": NaN}}]}', "NaN"),
    (
        "number out of range",
        '{"tool_calls": [{"name": "f", "arguments": {"x": 1e99999999999999999999}}]}',
        "out of range",
    ),
    ("top-level array", "[]", "must be a JSON object, got array"),
    ("tool_calls a string", '{"tool_calls": "f"}', "'tool_calls' must be an array, got string"),
    ("call a number", '{"tool_calls": [1]}', "tool_calls[0] must be a JSON object, got number"),
    (
        "call without name",
        '{"tool_calls": [{"name": "f"}, {}]}',
        "tool_calls[1].name must be a non-empty",
    ),
    (
        "arguments an array",
        '{"tool_calls": [{"name": "f", "arguments": []}]}',
        "tool_calls[0].arguments must",
    ),
    (
        "arguments bad string",
        '{"tool_calls": [{"name": "f", "arguments": "{x"}]}',
        "tool_calls[0].arguments is a string but not valid JSON",
    ),
]


@pytest.mark.parametrize("metric", COMPARISONS)
@pytest.mark.parametrize(
    ("reference", "words"), [c[1:] for c in BAD_REFERENCES], ids=[c[0] for c in BAD_REFERENCES]
)
def test_malformed_reference_is_invalid_argument(metric: str, reference: str, words: str) -> None:
    pairs = [{"prediction": WEATHER, "reference": WEATHER}] * 2 + [
        {"prediction": WEATHER, "reference": reference}
    ]
    ((field, description),) = errors(metric, pairs)
    assert field == f"{metric}_input.instances[2].reference"
    assert description.startswith("reference ")
    assert words in description


@pytest.mark.parametrize("metric", COMPARISONS)
def test_every_bad_reference_is_named_in_order(metric: str) -> None:
    pairs = [
        {"prediction": WEATHER, "reference": "x"},
        {"prediction": WEATHER, "reference": WEATHER},
        {"prediction": WEATHER, "reference": "[]"},
    ]
    fields = [field for field, _ in errors(metric, pairs)]
    assert fields == [f"{metric}_input.instances[{i}].reference" for i in (0, 2)]


@pytest.mark.parametrize("metric", COMPARISONS)
def test_missing_reference_is_invalid_argument(metric: str) -> None:
    ((field, _),) = errors(metric, [{"prediction": WEATHER}])
    assert field == f"{metric}_input.instances[0].reference"


def test_scores_in_instance_order() -> None:
    pairs = [
        {"prediction": payload(("f", {"a": 1})), "reference": payload(("f", {"a": 1, "b": 1}))},
        {"prediction": "garbage", "reference": WEATHER},
        {"prediction": WEATHER, "reference": WEATHER},
        {
            "prediction": payload(("f", {"a": 1, "b": 1, "c": 1, "d": 1})),
            "reference": payload(("f", {"a": 1})),
        },
    ]
    assert evaluate("tool_parameter_key_match", pairs) == pytest.approx([0.5, 0.0, 1.0, 0.25])


def test_large_batch_runs_off_loop() -> None:
    # More than INLINE_INSTANCES instances takes the worker-thread path; order must hold.
    pairs = [{"prediction": WEATHER if i % 3 else "x", "reference": WEATHER} for i in range(100)]
    assert evaluate("tool_name_match", pairs) == [1.0 if i % 3 else 0.0 for i in range(100)]


# ---------------------------------------------------------------- properties
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
names = st.sampled_from(["f", "g", "h"])
arguments = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), json_values, max_size=4)
call_lists = st.lists(st.tuples(names, arguments), max_size=4)


@settings(max_examples=100, deadline=None)
@given(predicted=call_lists, reference=call_lists, strict=st.booleans())
def test_scores_are_bounded_and_ordered(
    predicted: list[tuple[str, Any]], reference: list[tuple[str, Any]], strict: bool
) -> None:
    p, r = payload(*predicted), payload(*reference)
    name = score("tool_name_match", p, r)
    key = score("tool_parameter_key_match", p, r)
    kv = score("tool_parameter_kv_match", p, r, use_strict_string_match=strict)
    loose = score("tool_parameter_kv_match", p, r)
    assert name in (0.0, 1.0)
    assert 0.0 <= kv <= key <= 1.0  # a matching value needs a matching key
    assert kv <= loose + 1e-6  # strict never matches more than non-strict
    # Key and KV scores are symmetric: shared / union, averaged over max(len) positions.
    assert key == score("tool_parameter_key_match", r, p)
    if name == 1.0 and all(not args for _, args in predicted + reference):
        assert key == 1.0


@settings(max_examples=100, deadline=None)
@given(calls=call_lists, strict=st.booleans())
def test_payload_against_itself_scores_one(calls: list[tuple[str, Any]], strict: bool) -> None:
    p = payload(*calls)
    reordered = payload(*[(n, dict(reversed(list(a.items())))) for n, a in calls])
    assert score("tool_call_valid", p, "") == (1.0 if calls else 0.0)
    assert score("tool_name_match", p, reordered) == 1.0
    assert score("tool_parameter_key_match", p, reordered) == 1.0
    assert score("tool_parameter_kv_match", p, reordered, use_strict_string_match=strict) == 1.0


@settings(max_examples=100, deadline=None)
@given(
    prediction=st.text(max_size=40) | call_lists.map(lambda calls: payload(*calls)),
    reference=st.text(max_size=40) | call_lists.map(lambda calls: payload(*calls)),
)
def test_any_text_scores_or_names_the_reference(prediction: str, reference: str) -> None:
    # Whatever the strings, the outcome is a score in [0, 1] or InvalidArgument on the reference.
    pairs = [{"prediction": prediction, "reference": reference}]
    for metric in COMPARISONS:
        try:
            values = evaluate(metric, pairs)
        except InvalidArgument as exc:
            fields = [v.field for v in exc.violations]
        else:
            fields = []
            assert 0.0 <= values[0] <= 1.0
        assert fields in ([], [f"{metric}_input.instances[0].reference"])
    assert score("tool_call_valid", prediction, reference) in (0.0, 1.0)
