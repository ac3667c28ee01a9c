"""NeMo ``tool-calling``: do the response's tool calls match the expected ones (OpenAI format)?

NeMo compares *sets* of function names, and the arguments of each expected name with those of
the last predicted call of that name, with Python equality (``1 == 1.0``, ``True == 1``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView, TemplateRow
from evald.metrics.named.nemo.api_params import translate
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

SCORES = ("function_name_and_args_accuracy", "function_name_accuracy")
NEMO_RESPONSE = "{{ sample.response | tojson }}"
"""The calls made, in NeMo's API: the model's chat completion (``sample.response``)."""


class MalformedArguments(Exception):
    """A predicted call's ``function.arguments`` string is not JSON."""


def _json(text: str, field: str) -> Any:
    try:
        return json.loads(text) if text.strip() else []
    except ValueError as exc:
        raise InvalidArgument(field, f"not valid tool-call JSON: {exc}") from None


def _call_list(value: Any, field: str) -> list[Any]:
    """The calls of a list of calls, an assistant message (``tool_calls`` missing or null: no
    calls) or a chat completion (``choices[0].message``, as NeMo reads a response)."""
    if isinstance(value, dict) and "choices" in value:
        choices = value["choices"]
        if not isinstance(choices, list) or not choices:
            raise InvalidArgument(field, "a chat completion needs a non-empty choices list")
        first = choices[0]
        if not isinstance(first, dict) or not isinstance(first.get("message"), dict):
            raise InvalidArgument(field, "a chat completion needs choices[0].message")
        value = first["message"]
    if isinstance(value, dict):
        value = value.get("tool_calls") or []
    if not isinstance(value, list):
        raise InvalidArgument(
            field, "expected a list of tool calls, an assistant message or a chat completion"
        )
    return value


def expected_calls(text: str, field: str) -> list[tuple[str, Any]]:
    """``(name, arguments)`` of each expected call; every call needs ``function.name`` and
    ``function.arguments`` (NeMo refuses a reference without them). Arguments given as a JSON
    string are parsed."""
    calls = []
    for i, call in enumerate(_call_list(_json(text, field), field)):
        function = call.get("function") if isinstance(call, dict) else None
        if (
            not isinstance(function, dict)
            or not isinstance(function.get("name"), str)
            or "arguments" not in function
        ):
            raise InvalidArgument(
                f"{field}[{i}]", "an expected call needs function.name and function.arguments"
            )
        arguments = function["arguments"]
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError as exc:
                raise InvalidArgument(
                    f"{field}[{i}]", f"function.arguments is not valid JSON: {exc}"
                ) from None
        calls.append((function["name"], arguments))
    return calls


def predicted_calls(text: str, field: str) -> list[tuple[str, Any]]:
    """``(name, arguments string or object)`` of each predicted call that has a
    ``function.name``; calls without one are skipped, as NeMo skips them."""
    calls = []
    for call in _call_list(_json(text, field), field):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            calls.append((function["name"], function.get("arguments")))
    return calls


def _parsed(arguments: Any) -> Any:
    if arguments is None:
        return {}
    if not isinstance(arguments, str):
        return arguments  # already an object: NeMo reads a string only (see the docs)
    try:
        return json.loads(arguments)
    except ValueError as exc:
        raise MalformedArguments(str(exc)) from None


def accuracies(
    expected: list[tuple[str, Any]], predicted: list[tuple[str, Any]]
) -> tuple[float, float]:
    """(function_name_accuracy, function_name_and_args_accuracy); the second is NaN when a
    predicted call's arguments are not JSON, whatever the names."""
    names_match = {n for n, _ in expected} == {n for n, _ in predicted}
    name_score = 1.0 if names_match else 0.0
    try:
        # Later calls of a name replace earlier ones, on both sides (NeMo keys by name).
        got = {name: _parsed(arguments) for name, arguments in predicted}
    except MalformedArguments:
        return name_score, math.nan
    if not names_match:
        return name_score, 0.0
    wanted = dict(expected)
    same = all(got.get(name) == arguments for name, arguments in wanted.items())
    return name_score, 1.0 if same else 0.0


class ToolCalling(ComputedNamed):
    """NeMo's function_name_accuracy or function_name_and_args_accuracy of the response's calls."""

    name = "nemo/tool-calling"
    family = "nemo"
    definition = (
        'Both sides are OpenAI tool calls: a JSON list of `{"type": "function", "function": '
        '{"name", "arguments"}}`, an assistant message with `tool_calls`, or a chat completion '
        '`{"choices": [{"message": {"tool_calls": [...]}}]}` (its first choice is read; '
        "`tool_calls` missing or null is no calls). Every expected call needs `function.name` "
        "and `function.arguments`; predicted calls without `function.name` are skipped. "
        "`function_name_accuracy`: 1 when the *sets* of function names are equal "
        "(order-insensitive, case-sensitive, repeats ignored), else 0. "
        "`function_name_and_args_accuracy` (default): 0 when the names differ; else 1 when, "
        "for each expected name, the arguments of the last predicted call of that name equal "
        "those of the last expected call of that name, as parsed JSON under Python equality "
        "(key order ignored, `1` equals `1.0`, `true` equals `1`), else 0. It is NaN when a "
        "predicted arguments string is not JSON (left out of the dataset's statistics, counted "
        "under `nan`), while `function_name_accuracy` still scores. The explanation gives "
        "both. No calls on both sides is 1. evald also reads arguments given as a JSON object "
        "(NeMo reads predicted arguments as a string only, and compares a reference's "
        "arguments unparsed)."
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
    score_range = "0 or 1 (NaN for malformed predicted arguments)"
    nemo_type = "tool-calling"
    nemo_score_names = ("function_name_accuracy", "function_name_and_args_accuracy")

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        # The calls made are the model's chat completion (a data task: the row's response).
        return translate(
            params,
            path,
            {"tool_calls_ground_truth": "tool_calls_ground_truth"},
            required=("tool_calls_ground_truth",),
            defaults={"tool_calls": NEMO_RESPONSE},
        )

    def nemo_scores(self, params: Params, row: TemplateRow) -> dict[str, float]:
        names, full = self._accuracies(params, row)
        return {"function_name_accuracy": names, "function_name_and_args_accuracy": full}

    def _accuracies(self, params: Params, instance: InstanceView) -> tuple[float, float]:
        variables = instance.variables()
        truth_field = params.field("tool_calls_ground_truth")
        made_field = params.field("tool_calls")
        truth_text = render(params.string("tool_calls_ground_truth"), variables, truth_field)
        made_text = render(params.string("tool_calls"), variables, made_field)
        expected = expected_calls(truth_text, truth_field)
        predicted = predicted_calls(made_text, made_field)
        return accuracies(expected, predicted)

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        which = params.choice("score")
        names, full = self._accuracies(params, instance)
        explanation = f"function_name_accuracy: {names}, function_name_and_args_accuracy: {full}"
        if math.isnan(full):
            explanation += " (a predicted call's arguments are not valid JSON)"
        return Outcome(full if which == SCORES[0] else names, explanation)
