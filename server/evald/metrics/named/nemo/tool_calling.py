"""NeMo ``tool-calling``: do the response's tool calls match the expected ones (OpenAI format)?"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

SCORES = ("function_name_and_args_accuracy", "function_name_accuracy")


def parse_calls(text: str, field: str) -> list[tuple[str, Any]]:
    """``(name, arguments)`` of each call in OpenAI tool-call JSON.

    Accepts a list of calls, or an assistant message object with a ``tool_calls`` list (no key,
    or null: no calls). A call is ``{"type": "function", "function": {"name", "arguments"}}``
    (or the inner ``{"name", "arguments"}``); ``arguments`` is a JSON string or an object.
    """
    try:
        value = json.loads(text) if text.strip() else []
    except ValueError as exc:
        raise InvalidArgument(field, f"not valid tool-call JSON: {exc}") from None
    if isinstance(value, dict):
        value = value.get("tool_calls") or []
    if not isinstance(value, list):
        raise InvalidArgument(field, "expected a list of tool calls or an object with tool_calls")
    calls = []
    for i, call in enumerate(value):
        function = call.get("function", call) if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise InvalidArgument(f"{field}[{i}]", "a tool call needs function.name")
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                raise InvalidArgument(
                    f"{field}[{i}]", f"function.arguments is not valid JSON: {exc}"
                ) from None
        calls.append((function["name"], arguments))
    return calls


def _key(name: str, arguments: Any, with_args: bool) -> str:
    # Canonical JSON: key order does not matter, values and types do (1 != "1", 1 == 1.0).
    return json.dumps([name, arguments] if with_args else name, sort_keys=True)


class ToolCalling(ComputedNamed):
    """1 when the predicted calls equal the expected calls as multisets, else 0."""

    name = "nemo/tool-calling"
    family = "nemo"
    definition = (
        'Both sides are OpenAI tool calls: a JSON list of `{"type": "function", '
        '"function": {"name", "arguments"}}` (arguments a JSON string or object), or an '
        "assistant message with `tool_calls`. `function_name_accuracy`: 1 when the multisets of "
        "function names are equal (order-insensitive, case-sensitive). "
        "`function_name_and_args_accuracy` (default): 1 when the multisets of (name, parsed "
        "arguments) are equal; arguments compare as parsed JSON (key order ignored, values "
        "and types exact). Otherwise 0. No calls on both sides is 1."
    )
    parameters = (
        Parameter("score", "choice", "which accuracy to return", SCORES[0], SCORES),
        Parameter(
            "tool_calls_ground_truth",
            "string",
            "Jinja2 template of the expected calls",
            "{{reference}}",
        ),
        Parameter("tool_calls", "string", "Jinja2 template of the calls made", "{{response}}"),
    )

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        with_args = params.choice("score") == SCORES[0]
        variables = instance.variables()
        truth_field = params.field("tool_calls_ground_truth")
        made_field = params.field("tool_calls")
        truth = parse_calls(
            render(params.string("tool_calls_ground_truth"), variables, truth_field), truth_field
        )
        made = parse_calls(render(params.string("tool_calls"), variables, made_field), made_field)
        expected = Counter(_key(n, a, with_args) for n, a in truth)
        got = Counter(_key(n, a, with_args) for n, a in made)
        missing = sorted((expected - got).elements())
        extra = sorted((got - expected).elements())
        if not missing and not extra:
            return Outcome(1.0, "the calls match")
        return Outcome(0.0, f"missing: {missing or 'none'}; unexpected: {extra or 'none'}")
