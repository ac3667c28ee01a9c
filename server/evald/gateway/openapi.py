"""An OpenAPI 3 document generated from the routes and the message descriptors.

Paths come from the http rules: a variable spanning several segments
(``{location=projects/*/locations/*}``) is spelled out with one parameter per ``*``, named the
way Google's discovery documents name them (``projectsId``, ``locationsId``). Schemas follow the
proto3 JSON mapping (camelCase property names, 64-bit integers as strings, enums as names).

Descriptions are the .proto files' comments (``evald_proto/comments.json``, written by
``make proto``: generated Python carries no comments). A field is ``required`` when its comment
starts with "Required.", the form Google's API protos give their ``field_behavior = REQUIRED``
fields (the SDK's descriptors the Vertex messages are mirrored from do not keep that option);
"Output only." marks ``readOnly`` ones the same way.
The security schemes are the two ways a key is sent (:mod:`evald.ops.auth`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

import evald
from evald.gateway.routes import Route
from evald.gateway.template import Kind
from evald.ops.auth import API_KEY_HEADER

REQUIRED_MARK = "Required."
"""How a field's comment starts when the API requires the field."""
OUTPUT_ONLY_MARK = "Output only."
"""How a field's comment starts when only the server sets it (``readOnly``)."""
SECURITY_SCHEMES: dict[str, Any] = {
    "apiKey": {
        "type": "apiKey",
        "in": "header",
        "name": API_KEY_HEADER,
        "description": "an API key of the server's keys file or EVALD_API_KEYS",
    },
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "the same API key, as 'authorization: Bearer <key>'",
    },
}

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_SINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}

_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {"description": "any JSON value"},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "example": "3.5s"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object"},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "additionalProperties": True,
    },
    "google.protobuf.DoubleValue": {"type": "number", "format": "double"},
    "google.protobuf.FloatValue": {"type": "number", "format": "float"},
    "google.protobuf.Int64Value": {"type": "string", "format": "int64"},
    "google.protobuf.UInt64Value": {"type": "string", "format": "uint64"},
    "google.protobuf.Int32Value": {"type": "integer", "format": "int32"},
    "google.protobuf.UInt32Value": {"type": "integer", "format": "uint32"},
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BytesValue": {"type": "string", "format": "byte"},
}

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "integer", "description": "HTTP status"},
                "message": {"type": "string"},
                "status": {"type": "string", "description": "gRPC status code name"},
                "details": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/google.protobuf.Any"},
                },
            },
        }
    },
}


@functools.cache
def comments() -> dict[str, str]:
    """The .proto comments by full name (of a message, field, enum, value, service, method)."""
    text = resources.files("evald_proto").joinpath("comments.json").read_text(encoding="utf-8")
    loaded: dict[str, str] = json.loads(text)
    return loaded


def document(routes: Sequence[Route], *, keys_required: bool = True) -> dict[str, Any]:
    """The OpenAPI 3.0 document of ``routes``. Both ways of sending a key are documented; unless
    ``keys_required`` (a server without keys), calling with none is documented too."""
    schemas: dict[str, Any] = {"google.protobuf.Any": _WELL_KNOWN["google.protobuf.Any"]}
    paths: dict[str, Any] = {}
    for route in routes:
        path, parameters = openapi_path(route)
        request_ref = _message_ref(route.method.input_type, schemas)
        output: Any = route.method.output_type
        if route.response_body:
            output = output.fields_by_name[route.response_body].message_type
        operation: dict[str, Any] = {
            "operationId": f"{route.method.full_name}#{path}",
            "summary": f"{route.method.containing_service.full_name}.{route.method.name}",
            "tags": [route.method.containing_service.full_name],
            "parameters": [*parameters, _ALT_PARAMETER],
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": _message_ref(output, schemas)}},
                },
                "default": {
                    "description": "Error in Google's JSON error shape",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                },
            },
        }
        if comments().get(route.method.full_name):
            operation["description"] = comments()[route.method.full_name]
        if route.body:
            body_schema = request_ref
            if route.body != "*":
                body_schema = _field_schema(
                    route.method.input_type.fields_by_name[route.body], schemas
                )
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": body_schema}},
            }
        paths.setdefault(path, {})[route.http_method.lower()] = operation
    _unrequire_path_fields(routes, schemas)
    schemas["Error"] = ERROR_SCHEMA
    security: list[dict[str, list[str]]] = [{name: []} for name in SECURITY_SCHEMES]
    if not keys_required:
        security.insert(0, {})  # an empty requirement: no key at all
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "evald",
            "version": getattr(evald, "__version__", "0"),
            "description": "Vertex AI EvaluationService-compatible HTTP/JSON API served by evald.",
        },
        "paths": paths,
        "security": security,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": SECURITY_SCHEMES,
        },
    }


_ALT_PARAMETER = {
    "name": "$alt",
    "in": "query",
    "required": False,
    "description": "json (default); 'json;enum-encoding=int' answers enums as integers",
    "schema": {"type": "string"},
}


def openapi_path(route: Route) -> tuple[str, list[dict[str, Any]]]:
    """The OpenAPI path of a route and its path parameters."""
    template = route.template
    by_start = {v.start: v for v in template.variables}
    parts: list[str] = []
    parameters: list[dict[str, Any]] = []
    i = 0
    while i < len(template.segments):
        variable = by_start.get(i)
        if variable is None:
            parts.append(_static(template.segments[i], parameters, parts))
            i += 1
            continue
        inner = template.segments[variable.start : variable.end]
        if len(inner) == 1 and inner[0].kind is not Kind.LITERAL:
            parts.append("{" + variable.field_path + "}")
            note = f"request field {variable.field_path}"
            if inner[0].kind is Kind.DOUBLE_STAR:
                note += " (may span several segments)"
            parameters.append(_parameter(variable.field_path, note))
        else:
            for segment in inner:
                parts.append(_static(segment, parameters, parts, variable.field_path))
        i = variable.end
    path = "/" + "/".join(parts)
    if template.verb:
        path += ":" + template.verb
    return path, parameters


def _static(
    segment: Any, parameters: list[dict[str, Any]], parts: list[str], within: str = ""
) -> str:
    if segment.kind is Kind.LITERAL:
        return str(segment.literal)
    previous = parts[-1] if parts and not parts[-1].startswith("{") else "segment"
    name = f"{previous}Id" if segment.kind is Kind.STAR else f"{previous}Path"
    taken = {p["name"] for p in parameters}
    base, n = name, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    note = f"part of request field {within}" if within else "wildcard segment"
    parameters.append(_parameter(name, note))
    return "{" + name + "}"


def _parameter(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string"},
    }


def _message_ref(message: Descriptor, schemas: dict[str, Any]) -> dict[str, Any]:
    if message.full_name in _WELL_KNOWN and message.full_name != "google.protobuf.Any":
        return dict(_WELL_KNOWN[message.full_name])
    if message.full_name not in schemas:
        schemas[message.full_name] = {}  # placeholder first: messages may be recursive
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in message.fields:
            schema = _field_schema(field, schemas)
            comment = comments().get(field.full_name, "")
            notes = [comment] if comment else []
            oneof = field.containing_oneof
            if oneof is not None and not oneof.name.startswith("_"):  # "_x": proto3 optional
                notes.append(f"(oneof {oneof.name}: at most one of its fields is set)")
            elif comment.startswith(REQUIRED_MARK):
                required.append(field.json_name)
            schema = _described(schema, "\n\n".join(notes))
            if comment.startswith(OUTPUT_ONLY_MARK):
                schema = {**schema, "readOnly": True}
            properties[field.json_name] = schema
        described: dict[str, Any] = {"type": "object", "properties": properties}
        if comments().get(message.full_name):
            described["description"] = comments()[message.full_name]
        if required:
            described["required"] = required
        schemas[message.full_name] = described
    return {"$ref": f"#/components/schemas/{message.full_name}"}


def _unrequire_path_fields(routes: Sequence[Route], schemas: dict[str, Any]) -> None:
    """Fields a URL fills (``location`` in ``/v1beta1/projects/p/locations/l:evaluateInstances``)
    are not required in the body: a body without them is complete."""
    for route in routes:
        for variable in route.template.variables:
            message: Descriptor | None = route.method.input_type
            for name in variable.field_path.split("."):
                if message is None or name not in message.fields_by_name:
                    break
                field = message.fields_by_name[name]
                schema = schemas.get(message.full_name, {})
                if field.json_name in schema.get("required", []):
                    schema["required"].remove(field.json_name)
                    if not schema["required"]:
                        del schema["required"]
                message = field.message_type


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    """``schema`` with ``description``; a reference is wrapped in ``allOf``, since OpenAPI 3.0
    ignores the siblings of ``$ref``."""
    if not description:
        return schema
    if "$ref" in schema:
        return {"description": description, "allOf": [schema]}
    if schema.get("description"):  # an enum's own note
        description = f"{description}\n\n{schema['description']}"
    return {**schema, "description": description}


def _field_schema(field: FieldDescriptor, schemas: dict[str, Any]) -> dict[str, Any]:
    message = field.message_type
    if message is not None and message.GetOptions().map_entry:
        value = _single_schema(message.fields_by_name["value"], schemas)
        return {"type": "object", "additionalProperties": value}
    single = _single_schema(field, schemas)
    return {"type": "array", "items": single} if field.is_repeated else single


def _single_schema(field: FieldDescriptor, schemas: dict[str, Any]) -> dict[str, Any]:
    if field.message_type is not None:
        return _message_ref(field.message_type, schemas)
    if field.enum_type is not None:
        return _enum_schema(field.enum_type)
    return dict(_SCALARS[field.type])


def _enum_schema(enum: EnumDescriptor) -> dict[str, Any]:
    return {
        "type": "string",
        "enum": [value.name for value in enum.values],
        "description": f"{enum.full_name}; the integer values are accepted too",
    }
