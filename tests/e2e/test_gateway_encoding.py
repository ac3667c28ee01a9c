"""Request bodies with a Content-Encoding: decoded as they stream in, a body that does not
decode is 400 (no traceback logged), one that inflates past the body limit 413."""

from __future__ import annotations

import gzip
import json
import logging
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.http_support import http_serving, http_url
from tests.support import ServerThread

PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
BODY = json.dumps(
    {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}
).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with http_serving(max_http_body_bytes=1024 * 1024) as running:
        yield running


def send(server: ServerThread, body: bytes, encoding: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        http_url(server) + PATH,
        data=body,
        headers={"Content-Type": "application/json", "Content-Encoding": encoding},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def deflate(data: bytes) -> bytes:
    return zlib.compress(data)


CASES = [
    ("gzip", gzip.compress(BODY), 200, None),
    ("deflate", deflate(BODY), 200, None),
    ("gzip", b"not gzip at all", 400, "INVALID_ARGUMENT"),
    ("gzip", gzip.compress(BODY)[:20], 400, "INVALID_ARGUMENT"),  # truncated
    ("deflate", b"\x00\x01garbage", 400, "INVALID_ARGUMENT"),
    ("gzip", gzip.compress(b"{" * (8 * 1024 * 1024)), 413, "RESOURCE_EXHAUSTED"),  # inflates
]


@pytest.mark.parametrize(
    ("encoding", "body", "http", "status"),
    CASES,
    ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)],
)
def test_encoded_bodies(
    server: ServerThread,
    caplog: pytest.LogCaptureFixture,
    encoding: str,
    body: bytes,
    http: int,
    status: str | None,
) -> None:
    caplog.set_level(logging.DEBUG, logger="aiohttp")
    code, answer = send(server, body, encoding)
    assert code == http
    if status is None:
        assert answer["exactMatchResults"]["exactMatchMetricValues"] == [{"score": 1.0}]
    else:
        assert answer["error"]["status"] == status
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
