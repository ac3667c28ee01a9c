"""Idle and slow connections: closed after http_idle_seconds, capped so they cannot take every
file descriptor, and a flood of them leaves new HTTP and gRPC callers served; a burst of calls
is queued and served, not cancelled."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import queue
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from aiohttp import web
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.http_support import http_serving
from tests.support import ServeProcess, ServerThread

EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"
EVALUATE = "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances"
LOCAL_POOL = ("grpc.use_local_subchannel_pool", 1)  # a connection per channel


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
        said: list[str] = []
        while serving.get("msg") != "serving":
            line = process.stderr.readline()
            assert line, f"evald serve ended before serving ({process.wait(10)}): {said}"
            said.append(line)
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


JUDGE_ANSWER = json.dumps(
    {
        "candidates": [{"content": {"parts": [{"text": '{"score": 4, "explanation": "fine"}'}]}}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3},
    }
).encode()


@contextlib.contextmanager
def slow_judge(delay: float) -> Iterator[str]:
    """A Gemini-protocol judge on loopback that answers every call after ``delay`` seconds,
    on an event loop of its own (thousands of calls in flight cost it no thread each)."""
    ready: queue.Queue[str] = queue.Queue()
    loop = asyncio.new_event_loop()

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(delay)
        return web.Response(body=JUDGE_ANSWER, content_type="application/json")

    async def start() -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{tail:.*}", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=8192)
        await site.start()
        ready.put(f"http://127.0.0.1:{runner.addresses[0][1]}")
        return runner

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield ready.get(timeout=10)
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_a_burst_of_calls_beyond_grpcs_own_queue_is_served(tmp_path: Path) -> None:
    """5,000 judge calls started at once: the event loop takes them up one at a time, so
    thousands wait in gRPC's queue, which by default cancels what is beyond 3,000. Every call
    is answered."""
    calls = 5000
    with slow_judge(1.0) as url:
        config = tmp_path / "judges.json"
        (tmp_path / "key").write_text("k")
        config.write_text(
            json.dumps(
                {
                    "default_judge": "g",
                    "cache": {"enabled": False},
                    "judges": {
                        "g": {
                            "backend": "gemini",
                            "model": "m",
                            "base_url": url,
                            "api_key_file": str(tmp_path / "key"),
                            "max_concurrency": calls,
                        }
                    },
                }
            )
        )
        server = ServeProcess(
            [
                *("--judge-config", str(config), "--data-dir", str(tmp_path / "state")),
                *("--scoring-processes", "0"),
            ]
        ).ready(60)
        try:
            outcomes = asyncio.run(burst(server.address, calls))
        finally:
            server.stop()
    assert outcomes == {"OK": calls}


async def burst(address: str, calls: int) -> dict[str, int]:
    request = messages.EvaluateInstancesRequest(location="projects/p/locations/l")
    request.pointwise_metric_input.metric_spec.metric_prompt_template = "Rate {response}."
    request.pointwise_metric_input.instance.json_instance = json.dumps({"response": "hi"})
    request.autorater_config.sampling_count = 1
    body = request.SerializeToString()
    channels = [grpc.aio.insecure_channel(address, options=[LOCAL_POOL]) for _ in range(8)]
    send = [channel.unary_unary(EVALUATE, None, None) for channel in channels]
    outcomes: collections.Counter[str] = collections.Counter()

    async def one(index: int) -> None:
        try:
            await send[index % len(send)](body, timeout=120)
            outcomes["OK"] += 1
        except grpc.aio.AioRpcError as exc:
            outcomes[exc.code().name] += 1

    try:
        await asyncio.gather(*(one(i) for i in range(len(send))))  # connected
        outcomes.clear()
        await asyncio.gather(*(one(i) for i in range(calls)))
    finally:
        for channel in channels:
            await channel.close(None)
    return dict(outcomes)
