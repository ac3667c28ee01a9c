"""Fuzzing the parsers in-process: tool-call JSON, judge prompt templates and their JSON
instances, and the gateway's URL path templates. Each either parses or raises its documented
error; nothing else escapes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.gateway.template import PathTemplate
from evald.judging.templates import fill, json_variables, variables_of
from evald.metrics.tool_calls.json_values import JsonError, canonical_text
from evald.metrics.tool_calls.payload import PayloadError, parse_payload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
tool_call = st.fixed_dictionaries(
    {},
    optional={
        "name": json_values | st.text(max_size=10),
        "arguments": json_values | st.dictionaries(st.text(max_size=5), json_values, max_size=4),
    },
)
payloads = st.fixed_dictionaries(
    {},
    optional={
        "content": json_values,
        "tool_calls": st.lists(tool_call, max_size=4) | json_values,
    },
)
# Near-JSON text: real payloads cut, spliced and mangled, plus deep nesting and odd numbers.
nasty = st.sampled_from(
    ["[" * 5000, "{" * 3000, '{"tool_calls": ' + "[" * 5000, "1e999999", "-0", "NaN", "\ud800"]
)


def shallow(text: str) -> bool:
    """Nesting a recursive JSON parser survives (see test_deeply_nested_json_instance)."""
    return text.count("[") + text.count("{") < 500


texts = (
    payloads.map(json.dumps)
    | st.text(max_size=200)
    | nasty
    | st.tuples(payloads.map(json.dumps), st.integers(0, 200)).map(lambda t: t[0][: t[1]])
)


@FUZZ
@given(texts)
def test_tool_payload(text: str) -> None:
    try:
        calls = parse_payload(text)
    except PayloadError:
        return
    for call in calls:
        assert isinstance(call.name, str)
        call.arguments(strict=True)
        call.arguments(strict=False)


@FUZZ
@given(texts, st.booleans())
def test_canonical_text(text: str, strict: bool) -> None:
    try:
        key = canonical_text(text, strict=strict)
    except JsonError:
        return
    hash(key)  # canonical keys are hashable: trajectories are matched with a Counter


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
templates = st.lists(
    st.one_of(
        st.text(max_size=10), names.map(lambda n: "{" + n + "}"), st.sampled_from(["{", "}", "{{"])
    ),
    max_size=12,
).map("".join)


@FUZZ
@given(templates, st.dictionaries(names, st.text(max_size=10), max_size=5))
def test_template_fill(template: str, values: dict[str, str]) -> None:
    try:
        filled = fill(template, values, "metric_spec.metric_prompt_template")
    except InvalidArgument as exc:
        error: InvalidArgument | None = exc
    else:
        error = None
    if error is not None:
        assert error.violations[0].field == "metric_spec.metric_prompt_template"
        assert set(variables_of(template)) - set(values)
        return
    for name in variables_of(template):
        assert "{" + name + "}" not in filled or "{" + name + "}" in values[name]


def check_json_instance(text: str) -> None:
    try:
        variables = json_variables(text, "instance.json_instance")
    except InvalidArgument as exc:
        error: InvalidArgument | None = exc
    else:
        error = None
    if error is not None:
        assert error.violations[0].field == "instance.json_instance"
        return
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items())


@FUZZ
@given(st.one_of(json_values.map(json.dumps), st.text(max_size=100), nasty.filter(shallow)))
def test_json_instance(text: str) -> None:
    check_json_instance(text)


# Found by fuzzing: nesting ~5000 deep used to raise RecursionError (answered INTERNAL).
@pytest.mark.parametrize(
    "text", ["[" * 5000, '{"a": ' * 3000, '{"a": ' + "[" * 5000 + "]" * 5000 + "}"]
)
def test_deeply_nested_json_instance(text: str) -> None:
    check_json_instance(text)


path_pieces = st.sampled_from(
    ["{", "}", "=", "*", "**", "/", ":", "name", "projects", "a.b", "%2F", "", "{x=*}", "{y}"]
)


@FUZZ
@given(st.lists(path_pieces, max_size=10).map("".join), st.text(max_size=30))
def test_path_templates(template: str, path: str) -> None:
    try:
        parsed = PathTemplate.parse("/" + template)
    except ValueError:
        return
    bindings: Any = parsed.match("/" + path)
    assert bindings is None or isinstance(bindings, dict)
