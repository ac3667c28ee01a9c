"""Over HTTP as over gRPC: the caller's X-Server-Timeout and a client that goes away stop the
work (the sandboxed code is killed), and at the end of a graceful stop a call still running
gets 503 UNAVAILABLE, within the grace period."""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.http_support import http_serving
from tests.support import ServerThread

PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
SLEEPER = "import time\ndef evaluate(instance):\n    time.sleep(20)\n    return 1.0"
QUICK = "def evaluate(instance):\n    return 0.5"


def body(code: str) -> bytes:
    return json.dumps(
        {
            "metrics": [{"customCodeExecutionSpec": {"evaluationFunction": code}}],
            "instance": {"response": {"text": "r"}},
        }
    ).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with http_serving(custom_code=True, custom_code_wall_seconds=30.0) as running:
        yield running


def port(server: ServerThread) -> int:
    assert server.running is not None
    assert server.running.http is not None
    return int(server.running.http.port)


def post(server: ServerThread, code: str, **headers: str) -> tuple[int, Any, float]:
    connection = http.client.HTTPConnection("127.0.0.1", port(server), timeout=60)
    began = time.monotonic()
    try:
        connection.request(
            "POST", PATH, body=body(code), headers={"Content-Type": "application/json", **headers}
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read()), time.monotonic() - began
    finally:
        connection.close()


def sandboxes() -> list[int]:
    """Process ids of the sandboxed children this process (the server's) runs."""
    parents: dict[int, list[int]] = {}
    commands: dict[int, bytes] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                commands[int(entry.name)] = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            parent = int(stat[stat.rfind(")") + 2 :].split()[1])
            parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [os.getpid()]
    while todo:
        for child in parents.get(todo.pop(), []):
            todo.append(child)
            if b"_child.py" in commands.get(child, b""):
                found.append(child)
    return found


def gone_within(seconds: float) -> bool:
    end = time.monotonic() + seconds
    while sandboxes() and time.monotonic() < end:
        time.sleep(0.05)
    return not sandboxes()


def test_the_timeout_header_stops_the_work(server: ServerThread) -> None:
    status, answer, took = post(server, SLEEPER, **{"X-Server-Timeout": "1"})
    assert (status, answer["error"]["status"]) == (504, "DEADLINE_EXCEEDED")
    assert took < 5
    assert gone_within(3), "the sandboxed code kept running"
    status, answer, _ = post(server, QUICK)
    assert (status, answer["metricResults"][0]["score"]) == (200, 0.5)


def test_a_client_that_goes_away_stops_the_work(server: ServerThread) -> None:
    payload = body(SLEEPER)
    with socket.create_connection(("127.0.0.1", port(server)), timeout=10) as raw:
        raw.sendall(
            f"POST {PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        end = time.monotonic() + 10
        while not sandboxes() and time.monotonic() < end:
            time.sleep(0.05)
        assert sandboxes(), "the custom code did not start"
    assert gone_within(3), "the sandboxed code outlived its caller"


def test_a_call_running_at_the_end_of_the_grace_period_gets_503() -> None:
    with http_serving(custom_code=True, custom_code_wall_seconds=30.0) as running:
        answers: list[tuple[int, Any, float]] = []
        thread = threading.Thread(target=lambda: answers.append(post(running, SLEEPER)))
        thread.start()
        end = time.monotonic() + 10
        while not sandboxes() and time.monotonic() < end:
            time.sleep(0.05)
        assert running.running is not None
        began = time.monotonic()
        running.call(running.running.stop(1.0))
        stopped_in = time.monotonic() - began
        thread.join(10)
    ((status, answer, _),) = answers
    assert (status, answer["error"]["status"]) == (503, "UNAVAILABLE")
    assert stopped_in < 1.0 + 1.0  # within grace + 1 s
    assert gone_within(3)
