"""Limits end to end on both transports: sizes (RESOURCE_EXHAUSTED / 429 naming the field and
the limit), calls in flight per key (RESOURCE_EXHAUSTED / 429), and the judge's in-flight cap."""

from __future__ import annotations

import json
import resource
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.http_support import http_url, post
from tests.support import MESSAGES, ServerThread, serving, stub

m = MESSAGES["v1beta1"]
PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
KEY = "limits-test-key-0b7d"
VERDICT = json.dumps({"score": 1, "explanation": "ok"})


@pytest.fixture(scope="module")
def small() -> Iterator[ServerThread]:
    with serving(http_port=0, max_instances=2, max_template_bytes=32, max_code_bytes=16) as s:
        yield s


def exact(n: int) -> dict[str, Any]:
    return {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}] * n}}


def pointwise(template: str) -> dict[str, Any]:
    return {
        "pointwiseMetricInput": {
            "metricSpec": {"metricPromptTemplate": template},
            "instance": {"jsonInstance": json.dumps({"response": "R"})},
        }
    }


def custom(code: str) -> dict[str, Any]:
    return {"metrics": [{"customCodeExecutionSpec": {"evaluationFunction": code}}]}


SIZES = [
    # (JSON request, BadRequest field, limit named)
    (exact(3), "exact_match_input.instances", "max_instances"),
    (
        pointwise("x" * 33),
        "pointwise_metric_input.metric_spec.metric_prompt_template",
        "max_template_bytes",
    ),
    (
        custom("x" * 17),
        "metrics[0].custom_code_execution_spec.evaluation_function",
        "max_code_bytes",
    ),
]


def violation(status: status_pb2.Status) -> str:
    bad = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(bad)
    return str(bad.field_violations[0].field)


@pytest.mark.parametrize(("body", "field", "limit"), SIZES)
def test_size_limits_http(
    small: ServerThread, body: dict[str, Any], field: str, limit: str
) -> None:
    status, data = post(http_url(small), PATH, body)
    assert (status, data["error"]["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert limit in data["error"]["message"]
    assert data["error"]["details"][0]["fieldViolations"][0]["field"] == field


@pytest.mark.parametrize(("body", "field", "limit"), SIZES)
def test_size_limits_grpc(
    small: ServerThread, body: dict[str, Any], field: str, limit: str
) -> None:
    from google.protobuf import json_format

    request = json_format.ParseDict(body, m.EvaluateInstancesRequest())
    with grpc.insecure_channel(small.address) as channel, pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(request)
    err: Any = caught.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert limit in err.details()
    trailers = dict(err.trailing_metadata())
    assert violation(status_pb2.Status.FromString(trailers["grpc-status-details-bin"])) == field


def test_at_the_limit_is_served(small: ServerThread) -> None:
    status, _ = post(http_url(small), PATH, exact(2))
    assert status == 200


class SlowJudge(FakeJudge):
    """Answers after ``delay`` seconds and records the most calls it had at once."""

    def __init__(self, delay: float) -> None:
        super().__init__(default=self.answer)
        self.delay = delay
        self.now = 0
        self.peak = 0
        self.guard = threading.Lock()

    def answer(self, prompt: str) -> str:
        with self.guard:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(self.delay)
        with self.guard:
            self.now -= 1
        return VERDICT


@pytest.fixture
def slow_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[SlowJudge]:
    with running(SlowJudge(0.4)) as judge:
        assert isinstance(judge, SlowJudge)
        configure(monkeypatch, tmp_path, judge.url, max_concurrency=2)
        yield judge


def test_judge_calls_in_flight_are_capped(slow_judge: SlowJudge) -> None:
    with serving() as server, grpc.insecure_channel(server.address) as channel:
        from google.protobuf import json_format

        request = json_format.ParseDict(pointwise("Rate {response}"), m.EvaluateInstancesRequest())
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda _: stub(channel).EvaluateInstances(request), range(6)))
    assert all(r.pointwise_metric_result.score == 1.0 for r in results)
    assert slow_judge.peak == 2  # six requests, never more than max_concurrency judge calls


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_calls_in_flight_per_key(slow_judge: SlowJudge, tmp_path: Path, transport: str) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(
        json.dumps({"keys": [{"name": "one-at-a-time", "key": KEY, "max_concurrent": 1}]})
    )
    body = pointwise("Rate {response}")
    with serving(http_port=0, auth_keys_file=keys) as server:

        def call(_: int) -> tuple[int | str, Any]:
            if transport == "http":
                return post(http_url(server), PATH, body, **{"x-goog-api-key": KEY})
            from google.protobuf import json_format

            request = json_format.ParseDict(body, m.EvaluateInstancesRequest())
            with grpc.insecure_channel(server.address) as channel:
                try:
                    stub(channel).EvaluateInstances(request, metadata=(("x-goog-api-key", KEY),))
                except grpc.RpcError as err:
                    return err.code().name, err.details()
            return "OK", None

        with ThreadPoolExecutor(3) as pool:
            outcomes = list(pool.map(call, range(3)))
    codes = sorted(str(code) for code, _ in outcomes)
    if transport == "http":
        assert codes == ["200", "429", "429"]
        refused = [data for code, data in outcomes if code == 429]
        assert refused[0]["error"]["status"] == "RESOURCE_EXHAUSTED"
        assert "max_concurrent" in refused[0]["error"]["message"]
        detail = refused[0]["error"]["details"][0]
        assert detail["@type"].endswith("google.rpc.QuotaFailure")
        assert detail["violations"][0]["subject"] == "key:one-at-a-time"
    else:
        assert codes == ["OK", "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED"]
        assert any("max_concurrent" in str(d) for _, d in outcomes)


def test_per_key_default_without_auth(slow_judge: SlowJudge) -> None:
    """Without keys, max_concurrent_per_key caps all callers together."""
    with serving(http_port=0, max_concurrent_per_key=2) as server:
        body = pointwise("Rate {response}")
        with ThreadPoolExecutor(4) as pool:
            statuses = sorted(
                s for s, _ in pool.map(lambda _: post(http_url(server), PATH, body), range(4))
            )
        assert statuses == [200, 200, 429, 429]
        status, _ = post(http_url(server), PATH, body)  # slots are given back
        assert status == 200


def test_empty_instances_cost_no_memory_before_refusal() -> None:
    """57 MiB of empty instances would parse into ~28 million messages (~2 GB): refused from
    the wire, the server's memory grows by little more than the request's own bytes."""
    inner = b"\x12\x00" * (28 * 1024 * 1024)
    size = len(inner)
    header = bytearray([0x12])
    while True:
        low, size = size & 0x7F, size >> 7
        header.append(low | 0x80 if size else low)
        if not size:
            break
    raw = bytes(header) + inner
    with serving() as server, grpc.insecure_channel(server.address) as channel:
        call = channel.unary_unary(
            "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances",
            request_serializer=None,
            response_deserializer=None,
        )
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with pytest.raises(grpc.RpcError) as caught:
            call(raw, timeout=60)
        grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    error: Any = caught.value
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "messages" in error.details()
    assert grown_mib < 6 * len(raw) / 2**20  # the bytes in flight, a few copies: not 2 GB
