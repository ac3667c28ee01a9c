"""Requests that are not valid HTTP get Google's JSON error shape, quoting nothing back."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.http_support import http_serving
from tests.support import ServerThread

MARKER = "zq7MARKERzq7"
"""Sent inside each bad request: it must not come back."""


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with http_serving() as running:
        yield running


def exchange(server: ServerThread, data: bytes) -> tuple[int, dict[str, str], bytes]:
    assert server.running is not None
    assert server.running.http is not None
    with socket.create_connection(("127.0.0.1", server.running.http.port), timeout=10) as raw:
        raw.sendall(data)
        received = b""
        while chunk := raw.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines)}
    return int(status_line.split()[1]), headers, body


BAD = [
    ("request line", f"GARBAGE{MARKER}\r\n\r\n".encode()),
    ("method", f"G@T /{MARKER} HTTP/1.1\r\nHost: x\r\n\r\n".encode()),
    ("long header", f"GET / HTTP/1.1\r\nHost: x\r\nX-{MARKER}: {'a' * 20000}\r\n\r\n".encode()),
    (
        "bad chunking",
        f"POST /v1beta1/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        f"{MARKER}\r\n".encode(),
    ),
    ("http version", f"GET / HTTP/9.{MARKER}\r\nHost: x\r\n\r\n".encode()),
]


@pytest.mark.parametrize("data", [b for _, b in BAD], ids=[name for name, _ in BAD])
def test_a_protocol_error_is_json_and_quotes_nothing(server: ServerThread, data: bytes) -> None:
    status, headers, body = exchange(server, data)
    assert 400 <= status < 600
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["code"] == status
    assert error["status"] in ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED")
    assert MARKER.encode() not in body
