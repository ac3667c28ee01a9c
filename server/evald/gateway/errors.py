"""gRPC status → HTTP status and Google's JSON error body ``{"error": {...}}``."""

from __future__ import annotations

import base64
from typing import Any

import grpc
from google.protobuf import json_format
from google.rpc import status_pb2

from evald.errors import grpc_code

HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}
"""The mapping Google APIs use (``google/rpc/code.proto``); the GAPIC REST client picks its
exception class from the HTTP status."""


def http_status(number: int) -> int:
    """The HTTP status for a ``google.rpc.Status.code`` number."""
    return HTTP_STATUS[grpc_code(number)]


def error_body(status: status_pb2.Status, http: int | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "status", "details"}}`` for ``status``.

    ``http`` overrides the HTTP status the table gives (413 and 405 keep their gRPC code name).
    """
    code = grpc_code(status.code)
    error: dict[str, Any] = {
        "code": HTTP_STATUS[code] if http is None else http,
        "message": status.message,
        "status": code.name,
    }
    if status.details:
        error["details"] = [_detail(detail) for detail in status.details]
    return {"error": error}


def _detail(detail: Any) -> dict[str, Any]:
    try:
        return json_format.MessageToDict(detail)
    except (TypeError, KeyError, json_format.Error):
        # A detail type this process does not know: still say what it is.
        return {
            "@type": detail.type_url,
            "value": base64.b64encode(detail.value).decode("ascii"),
        }
