"""Parsing of the tool-call payload carried by ``prediction`` / ``reference`` strings.

A payload is a JSON object ``{"content": "...", "tool_calls": [{"name": ..., "arguments": ...}]}``.
The exact rules are in docs/metrics/computed.md ("Tool-call and trajectory rules"); in short:
``content`` and unknown keys are ignored, a missing or null ``tool_calls`` means no calls, each
call needs a non-empty string ``name``, and ``arguments`` is a JSON object, a string holding one,
or absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evald.metrics.tool_calls.json_values import (
    Canonical,
    JsonError,
    canonical,
    json_type,
    parse_json,
)

EXPECTED_SHAPE = 'expected a JSON object like {"content": "...", "tool_calls": [...]}'


class PayloadError(ValueError):
    """The payload breaks the rules; the message says where and how."""


@dataclass(frozen=True)
class ToolCall:
    """One parsed tool call: its name and its arguments as canonical keys, both modes."""

    name: str
    strict_args: dict[str, Canonical]
    loose_args: dict[str, Canonical]

    def arguments(self, *, strict: bool) -> dict[str, Canonical]:
        """The arguments by name, as canonical keys of the requested comparison mode."""
        return self.strict_args if strict else self.loose_args


def _arguments(raw: Any, where: str) -> dict[str, Any]:
    """The arguments object of one call (``where`` is its position, for messages)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            raw = parse_json(raw)
        except JsonError as exc:
            raise PayloadError(f"{where}.arguments is a string but {exc}") from None
    if not isinstance(raw, dict):
        raise PayloadError(
            f"{where}.arguments must be a JSON object or a string holding one, got {json_type(raw)}"
        )
    return raw


def _call(item: Any, where: str) -> ToolCall:
    if not isinstance(item, dict):
        raise PayloadError(f"{where} must be a JSON object, got {json_type(item)}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PayloadError(f"{where}.name must be a non-empty string")
    args = _arguments(item.get("arguments"), where)
    try:
        return ToolCall(
            name=name,
            strict_args={key: canonical(value, strict=True) for key, value in args.items()},
            loose_args={key: canonical(value, strict=False) for key, value in args.items()},
        )
    except RecursionError:  # parsed, but too deep to walk again
        raise PayloadError(f"{where}.arguments is nested too deeply") from None


def parse_payload(text: str) -> list[ToolCall]:
    """The tool calls of a payload, in order; :class:`PayloadError` if it breaks the rules."""
    if not text.strip():
        raise PayloadError(f"is empty; {EXPECTED_SHAPE}")
    try:
        payload = parse_json(text)
    except JsonError as exc:
        raise PayloadError(f"is {exc}; {EXPECTED_SHAPE}") from None
    if not isinstance(payload, dict):
        raise PayloadError(f"must be a JSON object, got {json_type(payload)}; {EXPECTED_SHAPE}")
    calls = payload.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise PayloadError(f"'tool_calls' must be an array, got {json_type(calls)}")
    return [_call(item, f"tool_calls[{j}]") for j, item in enumerate(calls)]
