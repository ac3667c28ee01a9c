"""HTTP helpers for the gateway tests: a tiny stdlib client that sends paths exactly as given,
and a server with the HTTP gateway on."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from tests.support import ServerThread, serving


def request(
    base_url: str,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """Send one request; returns (status, parsed JSON body or None, headers)."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    if body is not None and not isinstance(body, bytes):
        body = json.dumps(body).encode()
    try:
        connection.request(
            method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        raw = response.read()
        return (
            response.status,
            json.loads(raw) if raw else None,
            {k.lower(): v for k, v in response.getheaders()},
        )
    finally:
        connection.close()


def post(base_url: str, path: str, body: Any, **headers: str) -> tuple[int, Any]:
    status, data, _ = request(base_url, "POST", path, body, headers)
    return status, data


@contextmanager
def http_serving(**settings: Any) -> Iterator[ServerThread]:
    """``tests.support.serving`` with the HTTP gateway on port 0."""
    with serving(http_port=0, **settings) as running:
        yield running


def http_url(running: ServerThread) -> str:
    """Base URL of the running server's HTTP gateway."""
    assert running.running is not None
    assert running.running.http is not None
    return str(running.running.http.url)
