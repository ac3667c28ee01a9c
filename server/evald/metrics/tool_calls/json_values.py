"""JSON parsing and value comparison shared by the tool-call and trajectory metrics.

Values are turned into *canonical keys*: hashable, comparable forms in which two JSON values are
equal exactly when the metric rules say they match. Hashable keys let trajectories be matched as
multisets with a ``Counter``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any

Canonical = tuple[Any, ...]
"""A canonical key: ``(tag, payload)`` where tag is str/num/bool/null/list/obj/raw."""

# The JSON number grammar (RFC 8259); in non-strict mode a string spelled this way is a number.
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class JsonError(ValueError):
    """The text is not valid JSON (message says why)."""


def _reject_constant(name: str) -> Any:
    # NaN / Infinity are not JSON; Python's json accepts them unless told otherwise.
    raise JsonError(f"'{name}' is not a JSON value")


def parse_json(text: str) -> Any:
    """Parse strict JSON; numbers become ``Decimal`` so no precision is lost and none overflows."""
    try:
        return json.loads(
            text, parse_float=Decimal, parse_int=Decimal, parse_constant=_reject_constant
        )
    except JsonError:
        raise
    except InvalidOperation:  # an exponent beyond what Decimal can hold
        raise JsonError("not valid JSON (a number is out of range)") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise JsonError(f"not valid JSON ({exc})") from None


def _loose_text(text: str) -> str:
    """NFC-normalised, whitespace runs collapsed to one space, trimmed, case-folded."""
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def canonical(value: Any, *, strict: bool) -> Canonical:
    """The canonical key of a parsed JSON value (see the module doc and the documented rules).

    Both modes: numbers compare by numeric value (``1 == 1.0``), booleans are not numbers, arrays
    compare element by element in order, objects compare key by key (keys exact, order ignored).
    Strict: strings compare exactly. Non-strict: strings compare after :func:`_loose_text`, and a
    string that then reads as a JSON number, ``true``/``false`` or ``null`` equals that value.
    """
    if isinstance(value, bool):
        return ("bool", value)
    if value is None:
        return ("null",)
    if isinstance(value, (int, float, Decimal)):
        return ("num", Decimal(value) if not isinstance(value, float) else Decimal(repr(value)))
    if isinstance(value, str):
        if strict:
            return ("str", value)
        loose = _loose_text(value)
        if _JSON_NUMBER.fullmatch(loose):
            try:
                return ("num", Decimal(loose))
            except InvalidOperation:  # exponent out of Decimal's range: stays text
                pass
        if loose in ("true", "false"):
            return ("bool", loose == "true")
        if loose == "null":
            return ("null",)
        return ("str", loose)
    if isinstance(value, list):
        return ("list", tuple(canonical(item, strict=strict) for item in value))
    if isinstance(value, dict):
        return (
            "obj",
            frozenset((key, canonical(item, strict=strict)) for key, item in value.items()),
        )
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def canonical_text(text: str, *, strict: bool) -> Canonical:
    """The canonical key of the JSON value in ``text``; :class:`JsonError` if it is not JSON."""
    value = parse_json(text)
    try:
        return canonical(value, strict=strict)
    except RecursionError:  # nesting deep enough to parse but not to walk again
        raise JsonError("not valid JSON (nested too deeply)") from None


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value, for error messages."""
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, (int, float, Decimal)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
