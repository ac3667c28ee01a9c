"""Idle and slow connections: closed after http_idle_seconds, capped so they cannot take every
file descriptor, and a flood of them leaves new HTTP and gRPC callers served."""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.http_support import http_serving
from tests.support import ServerThread

EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with http_serving(http_idle_seconds=1.0) as running:
        yield running


def http_port(server: ServerThread) -> int:
    assert server.running is not None
    assert server.running.http is not None
    return int(server.running.http.port)


def closed_within(connection: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Whether the server closes ``connection`` within ``seconds`` (sending ``trickle`` one
    byte at a time meanwhile, as a slow client does)."""
    connection.settimeout(0.2)
    end = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < end:
        if sent < len(trickle):
            try:
                connection.sendall(trickle[sent : sent + 1])
            except OSError:
                return True
            sent += 1
        try:
            if connection.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_a_silent_connection_is_closed(server: ServerThread) -> None:
    with socket.create_connection(("127.0.0.1", http_port(server))) as connection:
        assert closed_within(connection, 5)


def test_a_slow_request_head_is_closed(server: ServerThread) -> None:
    slow = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
    with socket.create_connection(("127.0.0.1", http_port(server))) as connection:
        assert closed_within(connection, 5, trickle=slow)


def test_an_idle_kept_alive_connection_is_closed(server: ServerThread) -> None:
    with socket.create_connection(("127.0.0.1", http_port(server))) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        connection.settimeout(5)
        assert b"200" in connection.recv(65536).split(b"\r\n")[0]
        assert closed_within(connection, 5)


def test_a_slow_body_is_answered_408(server: ServerThread) -> None:
    with socket.create_connection(("127.0.0.1", http_port(server))) as connection:
        connection.sendall(
            b"POST /v1beta1/projects/p/locations/l:evaluateInstances HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        connection.settimeout(5)
        assert connection.recv(65536).split(b"\r\n")[0].split()[1] == b"408"


def test_a_flood_of_idle_connections_leaves_callers_served(tmp_path: Path) -> None:
    """Under an open-file limit of 256, 300 idle connections to the HTTP port: new HTTP and
    gRPC calls are still served, and the log is not flooded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    process = subprocess.Popen(
        [EVALD, "serve", "--port", "0", "--http-port", "0", "--data-dir", str(tmp_path)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=limited,
    )
    idle: list[socket.socket] = []
    try:
        assert process.stderr is not None
        serving: dict[str, Any] = {}
        while serving.get("msg") != "serving":
            line = process.stderr.readline()
            assert line, "evald serve ended before serving"
            # gRPC's C core writes its own plain-text lines to stderr (E1125 ... epoll ...).
            serving = json.loads(line) if line.startswith("{") else {}
        http_url, grpc_port = serving["http"], serving["port"]
        port = int(http_url.rsplit(":", 1)[1])
        for _ in range(300):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        with urllib.request.urlopen(f"{http_url}/healthz", timeout=10) as reply:
            assert reply.status == 200
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == 1
    finally:
        for connection in idle:
            connection.close()
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert errors.count("accept") < 20, errors[-2000:]
