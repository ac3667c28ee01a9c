"""The Prometheus endpoint (``metrics_port``) and OpenTelemetry spans, end to end."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.ops import tracing
from evald_proto.evald.v1 import metric_registry_pb2 as registry_pb
from google.longrunning import operations_proto_pb2 as lro

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import Reply, running
from tests.http_support import http_url, post
from tests.support import MESSAGES, ServerThread, serving, stub

parser = pytest.importorskip("prometheus_client.parser")
m = MESSAGES["v1beta1"]
PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
METHOD = "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances"
VERDICT = json.dumps({"score": 2, "explanation": "ok"})


def scrape(url: str, key: str = "") -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the endpoint as {(name, sorted labels): value} (sent with ``key``)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as reply:
        text = reply.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in parser.text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture(scope="module")
def observed() -> Iterator[ServerThread]:
    with serving(http_port=0, metrics_port=0) as server:
        yield server


def metrics_url(server: ServerThread) -> str:
    assert server.running is not None
    assert server.running.metrics is not None
    return server.running.metrics.url


def judged() -> Any:
    return m.EvaluateInstancesRequest(
        pointwise_metric_input=m.PointwiseMetricInput(
            metric_spec=m.PointwiseMetricSpec(metric_prompt_template="Rate {response}"),
            instance=m.PointwiseMetricInstance(json_instance=json.dumps({"response": "R"})),
        )
    )


def test_requests_by_method_metric_and_code(observed: ServerThread) -> None:
    before = scrape(metrics_url(observed))
    exact = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}
    for _ in range(3):
        assert post(http_url(observed), PATH, exact)[0] == 200
    bad = {"bleuInput": {"instances": [{"prediction": "a"}]}}
    assert post(http_url(observed), PATH, bad)[0] == 400
    with grpc.insecure_channel(observed.address) as channel:
        stub(channel).EvaluateInstances(
            m.EvaluateInstancesRequest(
                exact_match_input=m.ExactMatchInput(
                    instances=[m.ExactMatchInstance(prediction="a", reference="b")]
                )
            )
        )
    after = scrape(metrics_url(observed))

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ok = {"method": METHOD, "metric": "exact_match_input", "code": "OK"}
    assert delta("evald_requests_total", **ok) == 4  # 3 over HTTP + 1 over gRPC
    assert (
        delta("evald_requests_total", method=METHOD, metric="bleu_input", code="INVALID_ARGUMENT")
        == 1
    )
    latency = {"method": METHOD, "metric": "exact_match_input"}
    assert delta("evald_request_duration_seconds_count", **latency) == 4
    assert delta("evald_request_duration_seconds_bucket", **latency, le="+Inf") == 4
    assert value(after, "process_resident_memory_bytes") > 0


def test_judge_metrics(
    observed: ServerThread, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running() as fake:
        configure(monkeypatch, tmp_path, fake.url, cache=True, attempts=3, max_concurrency=5)
        fake.script(Reply(status=429), VERDICT)
        before = scrape(metrics_url(observed))
        with grpc.insecure_channel(observed.address) as channel:
            for _ in range(2):  # the second is answered from the cache
                assert stub(channel).EvaluateInstances(judged()).pointwise_metric_result.score == 2
        after = scrape(metrics_url(observed))
    assert len(fake.calls) == 2

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("evald_judge_calls_total", judge="fake", outcome="ok") == 1
    assert delta("evald_judge_calls_total", judge="fake", outcome="TransientError") == 1
    assert delta("evald_judge_retries_total", judge="fake") == 1
    assert delta("evald_judge_cache_hits_total", judge="fake") == 1
    assert value(after, "evald_judge_max_concurrency", judge="fake") == 5
    assert value(after, "evald_judge_calls_in_flight", judge="fake") == 0
    assert delta("evald_judge_call_duration_seconds_count", judge="fake") == 2


def test_auth_failures_are_counted(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "k", "key": "metrics-key-1"}]}))
    with serving(http_port=0, metrics_port=0, auth_keys_file=keys) as server:
        before = scrape(metrics_url(server), "metrics-key-1")
        assert post(http_url(server), PATH, {})[0] == 401
        assert post(http_url(server), PATH, {}, **{"x-goog-api-key": "nope"})[0] == 401
        after = scrape(metrics_url(server), "metrics-key-1")
    for reason in ("CREDENTIALS_MISSING", "API_KEY_INVALID"):
        name = "evald_auth_failures_total"
        assert value(after, name, reason=reason) - value(before, name, reason=reason) == 1


def test_metrics_port_stops_with_the_server() -> None:
    with serving(metrics_port=0) as server:
        url = metrics_url(server)
        assert scrape(url)
    with pytest.raises(urllib.error.URLError, match="refused"):
        urllib.request.urlopen(url, timeout=2)


def test_metrics_port_in_use_fails_loudly(observed: ServerThread) -> None:
    from evald.config import Settings
    from evald.server import start

    assert observed.running is not None
    assert observed.running.metrics is not None
    busy = observed.running.metrics.port
    with pytest.raises(OSError, match="cannot serve metrics"):
        observed.call(start(Settings(port=0, metrics_port=busy)))


# --- tracing --------------------------------------------------------------------------------


@pytest.fixture
def spans() -> Iterator[Any]:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    export = pytest.importorskip("opentelemetry.sdk.trace.export")
    memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")
    exporter = memory.InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    assert tracing.enable(provider)
    try:
        yield exporter
    finally:
        tracing.disable()
        provider.shutdown()


def test_spans_cover_rpc_handler_and_judge(
    spans: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running() as fake, serving(http_port=0) as server:
        configure(monkeypatch, tmp_path, fake.url)
        fake.script(VERDICT)
        parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        with grpc.insecure_channel(server.address) as channel:
            stub(channel).EvaluateInstances(judged(), metadata=(("traceparent", parent),))
        exact = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}
        assert post(http_url(server), PATH, exact)[0] == 200
    trace = int("0af7651916cd43dd8448eb211c80319c", 16)  # the caller's trace is continued
    finished = {s.name: s for s in spans.get_finished_spans() if s.context.trace_id == trace}
    rpc = finished[f"rpc {METHOD}"]
    handler = finished["evaluate pointwise_metric_input"]
    judge = finished["judge fake"]
    assert handler.parent.span_id == rpc.context.span_id
    assert judge.parent.span_id == handler.context.span_id
    assert rpc.parent.span_id == int("b7ad6b7169203331", 16)
    assert judge.attributes["model"] == "gemini-2.5-flash"
    names = [s.name for s in spans.get_finished_spans() if s.context.trace_id != trace]
    assert sorted(names) == ["evaluate exact_match_input", f"rpc {METHOD}"]  # the HTTP call


def test_tracing_off_records_nothing() -> None:
    assert not tracing.enabled()
    with tracing.span("x") as current:
        assert current is None


REGISTRY = "/" + registry_pb.DESCRIPTOR.services_by_name["MetricRegistry"].full_name
OTHER_RPCS = [
    # (method, request, expected code): one of each service besides EvaluateInstances.
    (f"{REGISTRY}/ListPredefinedMetrics", registry_pb.ListPredefinedMetricsRequest(), "OK"),
    (
        "/google.longrunning.Operations/GetOperation",
        lro.GetOperationRequest(name="projects/p/locations/l/operations/none"),
        "NOT_FOUND",
    ),
    (
        "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateDataset",
        m.EvaluateDatasetRequest(),
        "INVALID_ARGUMENT",
    ),
]


@pytest.mark.parametrize(
    ("method", "request_message", "code"),
    OTHER_RPCS,
    ids=[m.rsplit("/", 1)[1] for m, *_ in OTHER_RPCS],
)
def test_every_rpc_is_counted(
    observed: ServerThread, method: str, request_message: Any, code: str
) -> None:
    before = scrape(metrics_url(observed))
    with grpc.insecure_channel(observed.address) as channel:
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        try:
            call(request_message.SerializeToString(), timeout=10)
            got = "OK"
        except grpc.RpcError as err:
            got = err.code().name
    assert got == code
    after = scrape(metrics_url(observed))
    counted = [
        (labels["code"], after[key] - before.get(key, 0.0))
        for key in after
        if key[0] == "evald_requests_total"
        for labels in [dict(key[1])]
        if labels["method"] == method
    ]
    assert [(c, n) for c, n in counted if n] == [(code, 1.0)]


@pytest.mark.parametrize("open_metrics", [False, True])
def test_the_endpoint_follows_the_auth_setting(tmp_path: Path, open_metrics: bool) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "k", "key": "metrics-key-2"}]}))
    settings = {"metrics_port": 0, "auth_keys_file": keys, "auth_open_metrics": open_metrics}
    with serving(**settings) as server:
        url = metrics_url(server)
        assert scrape(url, "metrics-key-2")
        if open_metrics:
            assert scrape(url)
        else:
            for key in ("", "wrong"):
                with pytest.raises(urllib.error.HTTPError) as refused:
                    scrape(url, key)
                refused.value.close()
                assert refused.value.code == 401


def test_idle_connections_take_no_thread_each() -> None:
    with serving(metrics_port=0) as server:
        url = metrics_url(server)
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        threads = threading.active_count()
        idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(50)]
        try:
            time.sleep(0.2)
            assert threading.active_count() <= threads + 2
            assert scrape(url)  # still served
        finally:
            for connection in idle:
                connection.close()
