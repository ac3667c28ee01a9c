"""Proto3 JSON for the gateway's hot shapes, equal to ``json_format`` and several times faster.

``json_format.ParseDict`` and ``MessageToDict`` walk every field in Python with generic checks
(about 36 µs per small instance); a 100-instance BLEU request spent more time there than in
scoring. The fast paths below handle what requests and results are made of (messages, repeated
messages, strings, booleans, 32-bit integers, floats and doubles) by direct attribute access,
following ``json_format``'s own order of operations (a repeated field is cleared before it is
filled, a message field is merged into, keys are taken in order, a oneof set twice is an error).
Anything else, or anything ``json_format`` would reject (wrong types, a null, an unpaired
surrogate, an out-of-range number, enums, maps, bytes, 64-bit integers, well-known types), makes
the fast path give up and the call is done again by ``json_format`` itself, so results and
error messages are exactly that library's. ``tests/unit/gateway/test_fast_json.py`` checks the
equality on generated inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

MAX_DEPTH = 32
"""Deeper messages go to ``json_format`` (whose own limit is 100)."""

_FLOAT_MAX = float.fromhex("0x1.fffffep+127")
"""The largest 32-bit float: json_format rejects larger values for float fields."""
_FLOAT_MIN = -_FLOAT_MAX
_INT32_LIMIT = 1 << 31

# Kinds of field the fast paths handle.
_STRING, _BOOL, _INT, _FLOAT, _DOUBLE, _MESSAGE = range(6)


class _GiveUp(Exception):
    """The fast path cannot decide this input: use json_format."""


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    json_name: str
    kind: int
    repeated: bool
    oneof: str | None
    """Name of the containing oneof (synthetic ones of ``optional`` fields included)."""
    message: Descriptor | None


@cache
def _plan(descriptor: Descriptor) -> dict[str, _Field] | None:
    """Fields by JSON name and proto name; None if the message needs json_format."""
    if descriptor.full_name.startswith("google.protobuf.") or descriptor.GetOptions().map_entry:
        return None
    table: dict[str, _Field] = {}
    for field in descriptor.fields:
        kind = _kind(field)
        if kind is None:
            return None
        oneof = field.containing_oneof
        entry = _Field(
            field.name,
            field.json_name,
            kind,
            bool(field.is_repeated),
            oneof.name if oneof is not None else None,
            field.message_type if kind == _MESSAGE else None,
        )
        # json_format looks a key up by JSON name first, then by proto name.
        table.setdefault(field.name, entry)
        table[field.json_name] = entry
    return table


def _kind(field: FieldDescriptor) -> int | None:
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        return _MESSAGE
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        return _STRING if field.type == FieldDescriptor.TYPE_STRING else None
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return _BOOL
    if cpp in (FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_UINT32):
        return _INT
    if cpp == FieldDescriptor.CPPTYPE_FLOAT:
        return _FLOAT
    if cpp == FieldDescriptor.CPPTYPE_DOUBLE:
        return _DOUBLE
    return None  # enums, 64-bit integers (strings in JSON), bytes


# Parsing -----------------------------------------------------------------------------------


def parse_dict(data: dict[str, Any], message: Message) -> None:
    """``json_format.ParseDict(data, message, ignore_unknown_fields=True)``: the same result
    and the same exceptions."""
    if not message.ListFields():  # into an empty message only: a give-up can start over
        try:
            _fill(data, message, 1)
            return
        except (_GiveUp, ValueError, TypeError):  # the latter two: a value the message refused
            message.Clear()
    json_format.ParseDict(data, message, ignore_unknown_fields=True)


def _fill(data: Any, message: Any, depth: int) -> None:
    if type(data) is not dict or depth > MAX_DEPTH:
        raise _GiveUp
    plan = _plan(message.DESCRIPTOR)
    if plan is None:
        raise _GiveUp
    oneofs: set[str] | None = None
    for key, value in data.items():
        field = plan.get(key)
        if field is None:
            continue  # unknown keys are ignored, as with ignore_unknown_fields
        if value is None:
            raise _GiveUp  # null clears a field (or is an error in a list): rare, json_format's
        if field.oneof is not None:
            if oneofs is None:
                oneofs = set()
            elif field.oneof in oneofs:
                raise _GiveUp  # json_format raises "multiple oneof fields"
            oneofs.add(field.oneof)
        name = field.name
        if field.repeated:
            if type(value) is not list:
                raise _GiveUp
            message.ClearField(name)
            target = getattr(message, name)
            if field.kind == _MESSAGE:
                for item in value:
                    _fill(item, target.add(), depth + 1)
            else:
                target.extend([_scalar(field.kind, item) for item in value])
        elif field.kind == _MESSAGE:
            child = getattr(message, name)
            child.SetInParent()
            _fill(value, child, depth + 1)
        else:
            setattr(message, name, _scalar(field.kind, value))


def _scalar(kind: int, value: Any) -> Any:
    """``value`` as json_format would store it in a field of ``kind``; _GiveUp where it would
    convert in a way not copied here or reject the value."""
    kind_of_value = type(value)
    if kind == _STRING:
        if kind_of_value is not str:
            raise _GiveUp
        if not value.isascii():
            try:  # an unpaired surrogate cannot be encoded; json_format rejects it
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _GiveUp from None
        return value
    if kind == _BOOL:
        if kind_of_value is not bool:
            raise _GiveUp
        return value
    if kind == _INT:
        if kind_of_value is not int or not -_INT32_LIMIT <= value < _INT32_LIMIT:
            raise _GiveUp  # uint32 above 2**31 and negative uint32s: json_format decides
        return value
    if kind_of_value is float:
        if not math.isfinite(value) or (kind == _FLOAT and not _FLOAT_MIN <= value <= _FLOAT_MAX):
            raise _GiveUp
        return value
    if kind_of_value is int and -_INT32_LIMIT <= value < _INT32_LIMIT:
        return float(value)
    raise _GiveUp  # strings such as "NaN", booleans (json_format takes them as 1.0 / 0.0)


# Rendering ---------------------------------------------------------------------------------


def message_to_dict(message: Message, *, int_enums: bool = False) -> dict[str, Any]:
    """``json_format.MessageToDict(message, use_integers_for_enums=int_enums)``, equal."""
    try:
        return _render(message, 1)
    except _GiveUp:
        return json_format.MessageToDict(message, use_integers_for_enums=int_enums)


def _render(message: Any, depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH or _plan(message.DESCRIPTOR) is None:
        raise _GiveUp
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        if field.is_extension:
            raise _GiveUp
        cpp = field.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
            if field.is_repeated:
                out[field.json_name] = [_render(item, depth + 1) for item in value]
            else:
                out[field.json_name] = _render(value, depth + 1)
        elif cpp == FieldDescriptor.CPPTYPE_FLOAT or cpp == FieldDescriptor.CPPTYPE_DOUBLE:
            convert = _float32_json if cpp == FieldDescriptor.CPPTYPE_FLOAT else _double_json
            if field.is_repeated:
                out[field.json_name] = [convert(item) for item in value]
            else:
                out[field.json_name] = convert(value)
        elif field.is_repeated:
            out[field.json_name] = list(value)
        else:
            out[field.json_name] = value  # str, bool or a 32-bit integer, as json_format has them
    return out


_shortest_float = lru_cache(maxsize=4096)(type_checkers.ToShortestFloat)
"""json_format's text for a finite, non-zero float (32-bit) field: the shortest of its
``%.6g``, ``%.7g``, ... spellings that round-trips (cached: scores repeat)."""


def _float32_json(value: float) -> Any:
    if not math.isfinite(value):
        return _double_json(value)
    if value == 0.0:
        return value  # keeps the sign of -0.0, which a cache keyed on 0.0 == -0.0 would lose
    return _shortest_float(value)


def _double_json(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "-Infinity" if value < 0 else "Infinity"
    return value
