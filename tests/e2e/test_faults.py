"""A faulty judge: killed mid-request, hanging, 429 storms, garbage. Every request ends with the
documented code (``evald.judges.runtime``: retried, then UNAVAILABLE; DEADLINE_EXCEEDED when the
caller's deadline passes) and the server stays healthy and keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.fakes.judge_config import API_KEY, configure
from tests.fakes.judge_server import FakeJudge, Reply, running
from tests.http_support import http_url, post
from tests.support import MESSAGES, ServerThread, serving, stub

m = MESSAGES["v1beta1"]
ATTEMPTS = 3
VERDICT = json.dumps({"score": 4, "explanation": "fine"})


def judged_request() -> Any:
    return m.EvaluateInstancesRequest(
        pointwise_metric_input=m.PointwiseMetricInput(
            metric_spec=m.PointwiseMetricSpec(metric_prompt_template="Rate {response}"),
            instance=m.PointwiseMetricInstance(json_instance=json.dumps({"response": "R"})),
        )
    )


def computed_request() -> Any:
    return m.EvaluateInstancesRequest(
        exact_match_input=m.ExactMatchInput(
            instances=[m.ExactMatchInstance(prediction="a", reference="a")]
        )
    )


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with serving(http_port=0) as running_server:
        yield running_server


@pytest.fixture
def fake() -> Iterator[FakeJudge]:
    with running() as judge:
        yield judge


def code_of(channel: grpc.Channel, timeout: float | None = None) -> tuple[str, str]:
    try:
        stub(channel).EvaluateInstances(judged_request(), timeout=timeout)
    except grpc.RpcError as err:
        return err.code().name, str(err.details())
    return "OK", ""


def assert_healthy(server: ServerThread) -> None:
    """The server still reports SERVING and answers a computed request."""
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        reply = stub(channel).EvaluateInstances(computed_request(), timeout=10)
        assert reply.exact_match_results.exact_match_metric_values[0].score == 1.0


FAULTS = [
    # (scripted replies, expected code, fragment of the message)
    ([Reply(status=429)] * ATTEMPTS, "UNAVAILABLE", "429"),
    ([Reply(status=503)] * ATTEMPTS, "UNAVAILABLE", f"after {ATTEMPTS} attempt"),
    ([Reply(status=500)] * ATTEMPTS, "UNAVAILABLE", f"after {ATTEMPTS} attempt"),
    ([Reply(raw=b"\x00\xffgarbage")] * ATTEMPTS, "UNAVAILABLE", f"after {ATTEMPTS} attempt"),
    ([Reply(raw=b'{"candidates": [')] * ATTEMPTS, "UNAVAILABLE", f"after {ATTEMPTS} attempt"),
    (["no verdict in here"] * ATTEMPTS, "UNAVAILABLE", "unreadable answer"),
    ([Reply(status=429), Reply(status=429), VERDICT], "OK", ""),  # recovers within the budget
    ([Reply(status=401)], "FAILED_PRECONDITION", "rejected"),  # not retried
]


@pytest.mark.parametrize(("replies", "code", "fragment"), FAULTS)
def test_judge_faults(
    server: ServerThread,
    fake: FakeJudge,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    replies: list[Any],
    code: str,
    fragment: str,
) -> None:
    configure(monkeypatch, tmp_path, fake.url, attempts=ATTEMPTS)
    fake.script(*replies)
    with grpc.insecure_channel(server.address) as channel:
        got, message = code_of(channel)
    assert got == code
    assert fragment in message
    assert API_KEY not in message
    assert len(fake.calls) == len(replies)
    assert_healthy(server)


def test_hanging_judge_times_out(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, timeout=0.3, attempts=2)
    fake.script(*[Reply(text=VERDICT, delay=30)] * 2)
    start = time.monotonic()
    with grpc.insecure_channel(server.address) as channel:
        assert code_of(channel)[0] == "UNAVAILABLE"
    assert time.monotonic() - start < 15  # two 0.3 s timeouts, not two 30 s hangs
    assert_healthy(server)


def test_hanging_judge_and_caller_deadline(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, timeout=30, attempts=3)
    fake.script(*[Reply(text=VERDICT, delay=5)] * 3)
    with grpc.insecure_channel(server.address) as channel:
        assert code_of(channel, timeout=0.8)[0] == "DEADLINE_EXCEEDED"
    assert_healthy(server)


def test_429_storm_under_concurrency(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """40 concurrent calls over both transports while every judge call gets 429."""
    configure(monkeypatch, tmp_path, fake.url, attempts=2)
    fake.default = lambda prompt: "unused"
    fake.script(*[Reply(status=429)] * 80)
    body = {
        "pointwiseMetricInput": {
            "metricSpec": {"metricPromptTemplate": "Rate {response}"},
            "instance": {"jsonInstance": json.dumps({"response": "R"})},
        }
    }
    path = "/v1beta1/projects/p/locations/l:evaluateInstances"

    def one(i: int) -> str:
        if i % 2:
            status, data = post(http_url(server), path, body)
            return f"{status} {data['error']['status']}"
        with grpc.insecure_channel(server.address) as channel:
            return code_of(channel)[0]

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(one, range(40)))
    assert set(outcomes) == {"UNAVAILABLE", "503 UNAVAILABLE"}
    assert_healthy(server)


KILLABLE = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tests.fakes.judge_server import FakeJudge, Reply, running
judge = FakeJudge()
judge.script(*[Reply(text="{}", delay=60)] * 10)
with running(judge) as state:
    print(state.url, flush=True)
    time.sleep(120)
"""


def test_judge_killed_mid_request(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The judge process dies (SIGKILL) while evald waits for its answer: the connection drops,
    retries find nothing listening, and the call ends UNAVAILABLE."""
    root = str(Path(__file__).parents[2])
    process = subprocess.Popen(
        [sys.executable, "-c", KILLABLE, root], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        # A judge timeout longer than the call's 30 s deadline: UNAVAILABLE (not
        # DEADLINE_EXCEEDED) shows the dropped connection was noticed, not waited out.
        configure(monkeypatch, tmp_path, url, timeout=60, attempts=3)
        with ThreadPoolExecutor(1) as pool, grpc.insecure_channel(server.address) as channel:
            pending = pool.submit(code_of, channel, 30)
            time.sleep(0.5)  # the request is now waiting on the judge
            assert not pending.done()
            process.kill()
            code, message = pending.result(timeout=40)
        assert code == "UNAVAILABLE"
        assert "after 3 attempt" in message
    finally:
        process.kill()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
    assert_healthy(server)
