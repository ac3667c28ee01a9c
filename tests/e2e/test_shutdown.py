"""Graceful shutdown of a real ``evald serve`` process on SIGTERM / SIGINT, and its stderr.

An honest in-flight call without test hooks in the server: a client whose request is still
uploading. The call is opened as client-streaming on the wire (headers now, the one request message
later), which is byte-for-byte what a slow unary client sends; the server's unary handler waits
for the message. The test decides when the request finishes arriving, so it can signal the server
while the call is provably in flight.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import MESSAGES, stub

EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"
METHOD = "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances"
SIGNALS = [signal.SIGTERM, signal.SIGINT]
m = MESSAGES["v1beta1"]

# How long the server gets to pick up the held call before it is signalled. Matching a call to the
# handler takes well under a millisecond; this is slack for a loaded machine.
SETTLE_SECONDS = 0.5


class Evald:
    """``evald serve --port 0`` in a subprocess; stderr lines collected as they arrive."""

    def __init__(self, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}
        self.process = subprocess.Popen(
            [EVALD, "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._new: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port = int(self.wait_for("serving")["port"])
        self.address = f"127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            self._new.put(line)

    def wait_for(self, msg: str, timeout: float = 30) -> dict[str, Any]:
        """The next JSON log line with this ``msg`` (skipping others)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._new.get(timeout=max(left, 0.01))
            except queue.Empty:
                self.process.kill()
                raise AssertionError(f"no {msg!r} log line; stderr so far: {self.lines}") from None
            record: dict[str, Any] = json.loads(line)
            if record.get("msg") == msg:
                return record

    def stop(self) -> str:
        """Kill the process if still running, close its pipes; returns what it wrote to stdout."""
        if self.process.poll() is None:
            self.process.kill()
        out, _ = self.process.communicate(timeout=10)
        self._reader.join(10)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        return out


@pytest.fixture
def start_evald() -> Iterator[Any]:
    started: list[Evald] = []

    def start(*args: str) -> Evald:
        started.append(Evald(*args))
        return started[-1]

    yield start
    for process in started:
        process.stop()


def request(text: str = "Paris", location: str = "projects/p/locations/l") -> Any:
    return m.EvaluateInstancesRequest(
        location=location,
        exact_match_input=m.ExactMatchInput(
            metric_spec=m.ExactMatchSpec(),
            instances=[m.ExactMatchInstance(prediction=text, reference=text)],
        ),
    )


class HeldCall:
    """An EvaluateInstances call whose request message is sent only on ``release()``."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._go = threading.Event()
        call = channel.stream_unary(
            METHOD,
            request_serializer=m.EvaluateInstancesRequest.SerializeToString,
            response_deserializer=m.EvaluateInstancesResponse.FromString,
        )
        self.future = call.future(self._requests(), timeout=60)

    def _requests(self) -> Iterator[Any]:
        self._go.wait(60)
        yield request()

    def release(self) -> None:
        self._go.set()


def new_call_code(address: str) -> grpc.StatusCode:
    """The status of a new call on a fresh connection."""
    with grpc.insecure_channel(address) as fresh:
        try:
            stub(fresh).EvaluateInstances(request(), timeout=30)
        except grpc.RpcError as exc:
            return exc.code()
    return grpc.StatusCode.OK


def wait_listener_closed(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except ConnectionRefusedError:
            return
        time.sleep(0.02)
    raise AssertionError(f"port {port} still accepts connections")


def assert_refused(evald: Evald) -> None:
    """New calls are not served. One that races the listener's close may be accepted on the socket
    and then cancelled by the shutdown; once the listener is closed, connections are refused."""
    assert new_call_code(evald.address) in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
    wait_listener_closed(evald.port)
    assert new_call_code(evald.address) == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_in_flight_call_finishes_new_calls_refused(start_evald: Any, sig: signal.Signals) -> None:
    # A grace period far longer than any wait below: the process ends because the held call
    # ended, not because the grace period ran out.
    evald = start_evald("--grace-seconds", "300")
    with grpc.insecure_channel(evald.address) as channel:
        stub(channel).EvaluateInstances(request(), timeout=10)  # connection up
        held = HeldCall(channel)
        time.sleep(SETTLE_SECONDS)
        evald.process.send_signal(sig)
        assert evald.wait_for("shutting down")["signal"] == sig.name

        assert_refused(evald)
        with pytest.raises(grpc.RpcError) as caught:  # the old connection takes no new call either
            stub(channel).EvaluateInstances(request(), timeout=30)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert not held.future.done()
        assert evald.process.poll() is None  # still waiting for the held call

        held.release()
        response = held.future.result(timeout=60)
        assert response.exact_match_results.exact_match_metric_values[0].score == 1.0
        assert evald.process.wait(60) == 0
    evald.stop()
    assert any(json.loads(line)["msg"] == "stopped" for line in evald.lines)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_grace_period_bounds_shutdown(start_evald: Any, sig: signal.Signals) -> None:
    evald = start_evald("--grace-seconds", "1")
    with grpc.insecure_channel(evald.address) as channel:
        stub(channel).EvaluateInstances(request(), timeout=10)
        held = HeldCall(channel)
        time.sleep(SETTLE_SECONDS)
        signalled = time.monotonic()
        evald.process.send_signal(sig)
        # The held call would hold the server for 60 s (its deadline): exiting well before that
        # means the 1 s grace period cut it short; not before the grace period either.
        assert evald.process.wait(40) == 0
        assert time.monotonic() - signalled >= 0.9
        with pytest.raises(grpc.RpcError) as caught:
            held.future.result(timeout=10)
        assert caught.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
        held.release()


def test_second_signal_stops_at_once(start_evald: Any) -> None:
    # Neither the 300 s grace period nor the held call's 60 s deadline ends the wait: the second
    # signal does, and says so.
    evald = start_evald("--grace-seconds", "300")
    with grpc.insecure_channel(evald.address) as channel:
        stub(channel).EvaluateInstances(request(), timeout=10)
        held = HeldCall(channel)
        time.sleep(SETTLE_SECONDS)
        evald.process.send_signal(signal.SIGTERM)
        evald.wait_for("shutting down")
        evald.process.send_signal(signal.SIGINT)
        evald.wait_for("second signal: cancelling in-flight calls now")
        assert evald.process.wait(40) == 0
        with pytest.raises(grpc.RpcError):
            held.future.result(timeout=10)
        held.release()


def test_idle_server_stops_promptly_with_health_not_serving(start_evald: Any) -> None:
    """No call in flight, only a health Watch stream: the stream hears NOT_SERVING, ends, and the
    process exits without waiting for the 300 s grace period."""
    evald = start_evald("--grace-seconds", "300")
    with grpc.insecure_channel(evald.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        watch = health.Watch(health_pb2.HealthCheckRequest(), timeout=20)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        evald.process.send_signal(signal.SIGTERM)
        assert [r.status for r in watch] == [health_pb2.HealthCheckResponse.NOT_SERVING]
    assert evald.process.wait(60) == 0


SECRET = "secret-prompt-4b1d"
REQUEST_FIELDS = {"method", "metric", "instances", "code", "ms"}


def test_stderr_is_json_one_line_per_request_without_contents(start_evald: Any) -> None:
    evald = start_evald()
    with grpc.insecure_channel(evald.address) as channel:
        stub(channel).EvaluateInstances(request(SECRET), timeout=10)
        bad = m.EvaluateInstancesRequest(location=SECRET)  # no metric input
        with pytest.raises(grpc.RpcError) as caught:
            stub(channel).EvaluateInstances(bad, timeout=10)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    evald.process.send_signal(signal.SIGTERM)
    assert evald.process.wait(15) == 0
    assert evald.stop() == ""  # nothing on stdout

    records = [json.loads(line) for line in evald.lines]  # every line is JSON
    # A failed call is logged right after its status is sent, so that line may come after
    # "shutting down"; the graceful stop still waits for it.
    messages = [r["msg"] for r in records]
    assert messages[0] == "serving"
    assert messages[-1] == "stopped"
    assert sorted(messages[1:-1]) == ["request", "request", "shutting down"]
    ok, invalid = (r for r in records if r["msg"] == "request")
    assert ok["code"] == "OK"
    assert ok["metric"] == "exact_match_input"
    assert ok["instances"] == 1
    assert invalid["code"] == "INVALID_ARGUMENT"
    for line in (ok, invalid):
        assert line["method"] == METHOD
        assert line["logger"] == "evald.request"
        assert line["level"] == "info"
        assert set(line) == {
            "ts",
            "level",
            "logger",
            "msg",
            "method",
            "metric",
            "instances",
            "code",
            "ms",
        }
    assert SECRET not in "".join(evald.lines)
