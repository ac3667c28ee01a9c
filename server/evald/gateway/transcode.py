"""JSON bodies to request messages and response messages to JSON (proto3 JSON mapping).

``json_format.ParseDict(..., ignore_unknown_fields=True)`` semantics accept what the SDKs send:
camelCase and snake_case keys mixed at any depth, enums as names or integers, unknown keys.
:mod:`evald.gateway.fast_json` gives the same results faster for the common shapes; the extra
walks below run only on the error path (:func:`diagnose`) or when debug logging is on
(:func:`unknown_fields`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from evald.errors import FieldViolation, InvalidArgument
from evald.gateway import fast_json
from evald.gateway.routes import Route

log = logging.getLogger(__name__)

ALT_PARAMS = ("$alt", "alt")


def wants_int_enums(query_string: str) -> bool:
    """Whether ``?$alt=json;enum-encoding=int`` (or ``alt=...``) asks for integer enums.

    Other query parameters are ignored; an ``alt`` other than ``json`` is INVALID_ARGUMENT.
    """
    int_enums = False
    for pair in query_string.split("&"):
        key, _, value = pair.partition("=")
        if unquote_plus(key) not in ALT_PARAMS:
            continue
        # ';' separates the format from its options; it may arrive percent-encoded.
        alt, *options = unquote_plus(value).split(";")
        if alt.strip().lower() != "json":
            raise InvalidArgument(unquote_plus(key), f"only JSON responses are served, got {alt!r}")
        for option in options:
            name, _, setting = option.partition("=")
            if name.strip().lower() == "enum-encoding":
                int_enums = setting.strip().lower() == "int"
    return int_enums


def parse_request(
    route: Route, body: bytes, bindings: Mapping[str, str], query_string: str = ""
) -> Message:
    """The request message of ``route`` from a JSON body, the URL's path variables and, when
    the rule does not take the whole body, its query parameters (``?pageSize=10&filter=x``)."""
    message = route.input_class()
    if route.body != "*":
        _bind_query(message, query_string)
    if route.body:
        data = _load(body)
        if route.body == "*":
            _parse(data, message, "")
        else:
            json_name = message.DESCRIPTOR.fields_by_name[route.body].json_name
            _parse({json_name: data}, message, "")
    for field_path, value in bindings.items():
        _bind(message, field_path, value)
    return message


def render(message: Message, *, int_enums: bool = False) -> bytes:
    """Proto3 JSON (camelCase keys, UTF-8); ``optional`` fields keep their presence."""
    data = fast_json.message_to_dict(message, int_enums=int_enums)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def _load(body: bytes) -> Any:
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise InvalidArgument("", f"request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidArgument("", f"request body must be a JSON object, got {_kind(data)}")
    return data


def _parse(data: dict[str, Any], message: Message, path: str) -> None:
    found = _check_shape(data, message.DESCRIPTOR, path, SHAPE_DEPTH)
    if found is not None:
        raise InvalidArgument(found.field, found.description)
    try:
        fast_json.parse_dict(data, message)
    except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
        found = diagnose(data, message.DESCRIPTOR, path)
        if found is None:
            raise InvalidArgument(path, _clean(str(exc))) from None
        raise InvalidArgument(found.field, found.description) from None
    if log.isEnabledFor(logging.DEBUG):
        unknown = unknown_fields(data, message.DESCRIPTOR)
        if unknown:
            log.debug("ignored unknown request fields", extra={"fields": {"unknown": unknown}})


SHAPE_DEPTH = 2
"""Message levels checked for objects-where-objects-belong before parsing (the request and its
metric input). With ``ignore_unknown_fields`` the parser reads ``"bleuInput": "x"`` as an empty
message; deeper levels are left to the handlers' own checks, to keep the cost flat."""


def _check_shape(
    data: Mapping[str, Any], descriptor: Any, path: str, depth: int
) -> FieldViolation | None:
    table = _fields(descriptor)
    for key, value in data.items():
        field = table.get(key)
        if field is None or value is None or not _is_plain_message(field):
            continue
        where = f"{path}.{field.name}" if path else field.name
        if _is_repeated(field):
            if not isinstance(value, list):
                return FieldViolation(where, f"expected a JSON array, got {_kind(value)}")
            for i, item in enumerate(value):
                if not isinstance(item, Mapping):
                    got = _kind(item)
                    return FieldViolation(f"{where}[{i}]", f"expected a JSON object, got {got}")
        elif not isinstance(value, Mapping):
            return FieldViolation(where, f"expected a JSON object, got {_kind(value)}")
        elif depth > 1:
            found = _check_shape(value, field.message_type, where, depth - 1)
            if found is not None:
                return found
    return None


def _bind_query(message: Message, query_string: str) -> None:
    """Query parameters name fields (proto or JSON names, dotted into messages); repeated fields
    may be given several times. Unknown names are ignored, as unknown JSON fields are."""
    for key, value in parse_qsl(query_string, keep_blank_values=True):
        if key in ALT_PARAMS:
            continue
        path = _query_field_path(message.DESCRIPTOR, key)
        if path is None:
            log.debug("ignoring unknown query parameter %s", key)
            continue
        _bind(message, path, value)


def _query_field_path(descriptor: Any, key: str) -> str | None:
    names: list[str] = []
    *parents, leaf = key.split(".")
    for part in parents:
        field = _fields(descriptor).get(part)
        if field is None or field.message_type is None or _is_repeated(field):
            return None
        names.append(field.name)
        descriptor = field.message_type
    field = _fields(descriptor).get(leaf)
    if field is None or field.message_type is not None:
        return None  # only scalar (and enum) fields can be set from a query string
    return ".".join([*names, field.name])


def _bind(message: Message, field_path: str, value: str) -> None:
    *parents, leaf = field_path.split(".")
    target: Any = message
    for name in parents:
        target = getattr(target, name)
    field = target.DESCRIPTOR.fields_by_name[leaf]
    if _is_repeated(field):
        try:  # ParseDict merges, so a repeated field grows by one element per parameter
            json_format.ParseDict({field.json_name: [value]}, target)
        except json_format.ParseError as exc:
            problem = f"bad value {value!r}: {_clean(str(exc))}"
            raise InvalidArgument(field_path, problem) from None
        return
    if field.type == FieldDescriptor.TYPE_STRING:
        setattr(target, leaf, value)
        return
    try:
        json_format.ParseDict({field.json_name: value}, target)
    except json_format.ParseError as exc:
        raise InvalidArgument(field_path, f"bad path value {value!r}: {_clean(str(exc))}") from None


@cache
def _fields(descriptor: Any) -> dict[str, Any]:
    """Fields by proto name and by JSON name."""
    table: dict[str, FieldDescriptor] = {}
    for field in descriptor.fields:
        table[field.name] = field
        table[field.json_name] = field
    return table


def _is_plain_message(field: Any) -> bool:
    """A message field walked key by key (not a map, not a well-known type with its own JSON)."""
    message = field.message_type
    return (
        message is not None
        and not message.GetOptions().map_entry
        and not message.full_name.startswith("google.protobuf.")
    )


def _is_repeated(field: Any) -> bool:
    return bool(field.is_repeated)


def unknown_fields(data: Mapping[str, Any], descriptor: Any, path: str = "") -> list[str]:
    """Paths of the JSON keys no field of ``descriptor`` (or its sub-messages) knows."""
    found: list[str] = []
    table = _fields(descriptor)
    for key, value in data.items():
        field = table.get(key)
        where = f"{path}.{key}" if path else key
        if field is None:
            found.append(where)
        elif _is_plain_message(field):
            items = value if _is_repeated(field) and isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if isinstance(item, Mapping):
                    at = f"{where}[{i}]" if _is_repeated(field) else where
                    found.extend(unknown_fields(item, field.message_type, at))
    return found


def diagnose(data: Mapping[str, Any], descriptor: Any, path: str) -> FieldViolation | None:
    """The first field of ``data`` the JSON parser rejects, named by its proto field path."""
    table = _fields(descriptor)
    seen: dict[str, str] = {}
    for key, value in data.items():
        field = table.get(key)
        if field is None or value is None:
            continue
        where = f"{path}.{field.name}" if path else field.name
        if field.name in seen:
            return FieldViolation(where, f"given twice, as {seen[field.name]!r} and {key!r}")
        seen[field.name] = key
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):
            others = [
                seen_key
                for name, seen_key in seen.items()
                if name != field.name and descriptor.fields_by_name[name].containing_oneof is oneof
            ]
            if others:
                at = f"{path}.{oneof.name}" if path else oneof.name
                return FieldViolation(
                    at,
                    f"only one member of oneof '{oneof.name}' may be set, got {others[0]!r} "
                    f"and {key!r}",
                )
        problem = _check_field(field, key, value, descriptor, where)
        if problem is not None:
            return problem
    return None


def _check_field(field: Any, key: str, value: Any, owner: Any, where: str) -> FieldViolation | None:
    if not _is_plain_message(field):
        try:
            json_format.ParseDict(
                {key: value}, GetMessageClass(owner)(), ignore_unknown_fields=True
            )
        except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
            return FieldViolation(where, _clean(str(exc)))
        return None
    if _is_repeated(field):
        if not isinstance(value, list):
            return FieldViolation(where, f"expected a JSON array, got {_kind(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, Mapping):
                return FieldViolation(f"{where}[{i}]", f"expected a JSON object, got {_kind(item)}")
            found = diagnose(item, field.message_type, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if not isinstance(value, Mapping):
        return FieldViolation(where, f"expected a JSON object, got {_kind(value)}")
    return diagnose(value, field.message_type, where)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__


def _clean(message: str) -> str:
    """The parser's message without its repeated ``Failed to parse X field:`` prefixes."""
    while message.startswith("Failed to parse ") and " field: " in message:
        message = message.split(" field: ", 1)[1]
    return message.rstrip(".") or "invalid value"
