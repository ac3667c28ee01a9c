"""gRPC code → HTTP status (Google's table in google/rpc/code.proto) and the error body shape."""

from __future__ import annotations

import grpc
import pytest
from evald.errors import InvalidArgument
from evald.gateway.errors import HTTP_STATUS, error_body, http_status
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

# Written out from google/rpc/code.proto, not derived from the module under test.
GOOGLE_TABLE = [
    ("OK", 0, 200),
    ("CANCELLED", 1, 499),
    ("UNKNOWN", 2, 500),
    ("INVALID_ARGUMENT", 3, 400),
    ("DEADLINE_EXCEEDED", 4, 504),
    ("NOT_FOUND", 5, 404),
    ("ALREADY_EXISTS", 6, 409),
    ("PERMISSION_DENIED", 7, 403),
    ("RESOURCE_EXHAUSTED", 8, 429),
    ("FAILED_PRECONDITION", 9, 400),
    ("ABORTED", 10, 409),
    ("OUT_OF_RANGE", 11, 400),
    ("UNIMPLEMENTED", 12, 501),
    ("INTERNAL", 13, 500),
    ("UNAVAILABLE", 14, 503),
    ("DATA_LOSS", 15, 500),
    ("UNAUTHENTICATED", 16, 401),
]


def test_table_covers_every_grpc_code() -> None:
    assert {name for name, _, _ in GOOGLE_TABLE} == {c.name for c in grpc.StatusCode}
    assert set(HTTP_STATUS) == set(grpc.StatusCode)


@pytest.mark.parametrize(("name", "number", "http"), GOOGLE_TABLE)
def test_http_status(name: str, number: int, http: int) -> None:
    assert grpc.StatusCode[name].value[0] == number
    assert http_status(number) == http
    if name != "OK":
        body = error_body(status_pb2.Status(code=number, message="m"))
        assert body == {"error": {"code": http, "message": "m", "status": name}}


def test_unknown_code_number_is_unknown() -> None:
    assert http_status(99) == 500
    assert error_body(status_pb2.Status(code=99, message="x"))["error"]["status"] == "UNKNOWN"


def test_bad_request_details_in_google_json() -> None:
    status = InvalidArgument("bleu_input.instances[3].reference", "required").to_status()
    assert error_body(status) == {
        "error": {
            "code": 400,
            "message": "bleu_input.instances[3].reference: required",
            "status": "INVALID_ARGUMENT",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [
                        {"field": "bleu_input.instances[3].reference", "description": "required"}
                    ],
                }
            ],
        }
    }


def test_override_keeps_the_code_name() -> None:
    body = error_body(status_pb2.Status(code=8, message="too big"), http=413)
    assert body["error"]["code"] == 413
    assert body["error"]["status"] == "RESOURCE_EXHAUSTED"


def test_detail_of_unknown_type_is_kept_opaque() -> None:
    detail = any_pb2.Any(type_url="type.googleapis.com/no.such.Type", value=b"\x01\x02")
    body = error_body(status_pb2.Status(code=13, message="x", details=[detail]))
    assert body["error"]["details"] == [
        {"@type": "type.googleapis.com/no.such.Type", "value": "AQI="}
    ]


def test_other_known_details_render() -> None:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason="QUOTA", domain="evald"))
    body = error_body(status_pb2.Status(code=8, message="x", details=[info]))
    assert body["error"]["details"] == [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA", "domain": "evald"}
    ]
