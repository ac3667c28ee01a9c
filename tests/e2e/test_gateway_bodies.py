"""Large HTTP bodies: a caller without a key is refused from its headers (its body is never
parsed), a body of countless tiny JSON values is refused before parsing, and a large honest
body is parsed off the event loop with the same result."""

from __future__ import annotations

import http.client
import json
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import ServerThread, serving

KEY = "evald-test-bodies-key-4411"
PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    keys = tmp_path_factory.mktemp("keys") / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "k", "key": KEY}]}))
    with serving(http_port=0, auth_keys_file=keys, scoring_processes=1) as running:
        yield running


def post(server: ServerThread, body: bytes, key: str = "") -> tuple[int, Any, float]:
    """Status, JSON answer and seconds taken of one POST."""
    assert server.running is not None
    assert server.running.http is not None
    connection = http.client.HTTPConnection("127.0.0.1", server.running.http.port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["x-goog-api-key"] = key
    began = time.monotonic()
    try:
        connection.request("POST", PATH, body=body, headers=headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
    finally:
        connection.close()
    return response.status, answer, time.monotonic() - began


def empty_instances(count: int) -> bytes:
    return b'{"exactMatchInput": {"instances": [' + b",".join([b"{}"] * count) + b"]}}"


def test_no_key_is_refused_before_the_body_is_parsed(server: ServerThread) -> None:
    body = empty_instances(10_000_000)  # 30 MB that would parse into 10 million dicts
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    status, answer, took = post(server, body)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert (status, answer["error"]["status"]) == (401, "UNAUTHENTICATED")
    assert took < 10
    assert grown_mib < 4 * len(body) / 2**20  # the bytes in flight, not gigabytes of dicts


def test_countless_tiny_values_are_refused_before_parsing(server: ServerThread) -> None:
    body = empty_instances(10_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    status, answer, _ = post(server, body, KEY)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert (status, answer["error"]["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert "JSON objects and arrays" in answer["error"]["message"]
    assert grown_mib < 4 * len(body) / 2**20


def test_a_large_honest_body_is_served(server: ServerThread) -> None:
    instances = [
        {"prediction": f"answer {i}", "reference": f"answer {i if i % 2 else -i}"}
        for i in range(20_000)
    ]
    body = json.dumps({"exactMatchInput": {"instances": instances}}).encode()
    assert len(body) > 256 * 1024  # over the inline size: parsed in the scoring process
    status, answer, _ = post(server, body, KEY)
    assert status == 200
    scores = [v["score"] for v in answer["exactMatchResults"]["exactMatchMetricValues"]]
    assert scores == [1.0 if i % 2 or i == 0 else 0.0 for i in range(20_000)]
