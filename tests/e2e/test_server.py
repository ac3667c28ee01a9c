"""The gRPC server around the service: health, TLS, size limits, binding, the request log line."""

from __future__ import annotations

import asyncio
import logging
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.config import Settings
from evald.ops import calls
from evald.server import start
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from tests.support import MESSAGES, ServerThread, serving, stub
from tests.tls import self_signed

V1BETA1 = "google.cloud.aiplatform.v1beta1.EvaluationService"
V1 = "google.cloud.aiplatform.v1.EvaluationService"
EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"


def exact_match_request(version: str = "v1beta1", text: str = "Paris", count: int = 1) -> Any:
    m = MESSAGES[version]
    return m.EvaluateInstancesRequest(
        location="projects/p/locations/us-central1",
        exact_match_input=m.ExactMatchInput(
            metric_spec=m.ExactMatchSpec(),
            instances=[m.ExactMatchInstance(prediction=text, reference=text)] * count,
        ),
    )


# --- health -------------------------------------------------------------------------------


@pytest.mark.parametrize("service", ["", V1BETA1, V1])
def test_health_check_serving(channel: grpc.Channel, service: str) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_health_check_unknown_service_is_not_found(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    with pytest.raises(grpc.RpcError) as caught:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("service", ["", V1BETA1, V1])
def test_health_turns_not_serving_on_graceful_shutdown(service: str) -> None:
    with serving(grace_seconds=300) as server, grpc.insecure_channel(server.address) as ch:
        assert server.running is not None
        watch = health_pb2_grpc.HealthStub(ch).Watch(
            health_pb2.HealthCheckRequest(service=service), timeout=20
        )
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        stopping = asyncio.run_coroutine_threadsafe(server.running.stop(), server.loop)
        # The stream reports NOT_SERVING, then ends cleanly instead of holding the server open
        # for the 300 s grace period.
        assert [r.status for r in watch] == [health_pb2.HealthCheckResponse.NOT_SERVING]
        assert watch.code() == grpc.StatusCode.OK
        stopping.result(60)


# --- TLS ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """A self-signed certificate for localhost / 127.0.0.1: (cert path, key path, cert PEM)."""
    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    return cert, key, cert.read_bytes()


@pytest.fixture(scope="module")
def tls_server(tls_files: tuple[Path, Path, bytes]) -> Iterator[ServerThread]:
    """A TLS server configured the way an operator would: through EVALD_TLS_* variables."""
    cert, key, _ = tls_files
    env = {"EVALD_TLS_CERT": str(cert), "EVALD_TLS_KEY": str(key)}
    with ServerThread(Settings.load({"port": 0}, env=env)) as server:
        yield server


def test_tls_call_with_trusted_certificate(
    tls_server: ServerThread, tls_files: tuple[Path, Path, bytes]
) -> None:
    assert tls_server.settings.tls
    credentials = grpc.ssl_channel_credentials(root_certificates=tls_files[2])
    with grpc.secure_channel(tls_server.address, credentials) as ch:
        response = stub(ch).EvaluateInstances(exact_match_request(count=2), timeout=10)
        values = response.exact_match_results.exact_match_metric_values
        assert [v.score for v in values] == [1.0, 1.0]
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_tls_plaintext_client_fails(tls_server: ServerThread) -> None:
    with grpc.insecure_channel(tls_server.address) as ch, pytest.raises(grpc.RpcError) as caught:
        stub(ch).EvaluateInstances(exact_match_request(), timeout=5)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_tls_untrusted_certificate_fails(
    tls_server: ServerThread, tmp_path: Path, tls_files: tuple[Path, Path, bytes]
) -> None:
    stranger, _ = self_signed(tmp_path, common_name="someone else")
    credentials = grpc.ssl_channel_credentials(root_certificates=stranger.read_bytes())
    with (
        grpc.secure_channel(tls_server.address, credentials) as ch,
        pytest.raises(grpc.RpcError) as caught,
    ):
        stub(ch).EvaluateInstances(exact_match_request(), timeout=5)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_tls_missing_file_fails_loudly(
    server: ServerThread, tls_files: tuple[Path, Path, bytes], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.pem"
    with pytest.raises(OSError, match=r"cannot read TLS certificate .*missing\.pem"):
        server.call(start(Settings(port=0, tls_cert=missing, tls_key=tls_files[1])))


def test_tls_invalid_pem_fails_loudly(server: ServerThread, tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(OSError, match="not a valid PEM"):
        server.call(start(Settings(port=0, tls_cert=junk, tls_key=junk)))


# --- limits -------------------------------------------------------------------------------

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def small_server() -> Iterator[ServerThread]:
    with serving(max_message_bytes=LIMIT) as server:
        yield server


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_request_over_the_limit_is_resource_exhausted(
    small_server: ServerThread, version: str
) -> None:
    request = exact_match_request(version, text="x" * 1000, count=40)
    assert request.ByteSize() > LIMIT
    with grpc.insecure_channel(small_server.address) as ch, pytest.raises(grpc.RpcError) as caught:
        stub(ch, version).EvaluateInstances(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_request_under_the_limit_is_served(small_server: ServerThread) -> None:
    request = exact_match_request(text="x" * 1000, count=30)
    assert request.ByteSize() < LIMIT
    with grpc.insecure_channel(small_server.address) as ch:
        response = stub(ch).EvaluateInstances(request, timeout=10)
    assert len(response.exact_match_results.exact_match_metric_values) == 30


# --- binding ------------------------------------------------------------------------------


def test_port_in_use_raises(server: ServerThread) -> None:
    assert server.running is not None
    with pytest.raises(OSError, match=r"cannot listen on 127\.0\.0\.1:\d+: .*in use"):
        server.call(start(Settings(port=server.running.port)))


def test_port_in_use_is_shared_only_when_asked() -> None:
    """SO_REUSEPORT on both sides lets two servers share a port; the default refuses."""
    with serving(reuse_port=True) as first:
        assert first.running is not None
        second = first.call(start(Settings(port=first.running.port, reuse_port=True)))
        assert second.port == first.running.port
        first.call(second.stop(0))


def test_cli_port_in_use_exits_nonzero(server: ServerThread) -> None:
    assert server.running is not None
    done = subprocess.run(
        [EVALD, "serve", "--port", str(server.running.port)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"evald serve: cannot listen on 127.0.0.1:{server.running.port}" in done.stderr
    assert "Address already in use" in done.stderr


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--port", "70000"], {}, "port must be within 0..65535"),
        ([], {"EVALD_PORT": "fifty"}, "EVALD_PORT='fifty' is not a valid int"),
        (["--tls-cert", "c.pem"], {}, "TLS needs both"),
    ],
)
def test_cli_bad_settings_exit_2(args: list[str], env: dict[str, str], message: str) -> None:
    done = subprocess.run(
        [EVALD, "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert done.returncode == 2
    assert message in done.stderr


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_ipv6_host(host: str) -> None:
    with serving(host=host) as server, grpc.insecure_channel(server.address) as ch:
        assert server.address.startswith("[::1]:")
        response = stub(ch).EvaluateInstances(exact_match_request(), timeout=10)
        assert response.exact_match_results.exact_match_metric_values[0].score == 1.0


# --- the request log line -----------------------------------------------------------------

SECRET = "do-not-log-7f3a"


def request_records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """The request log lines, waiting briefly for one: a failed call is logged just after its
    status is sent, so the client may see the error first."""
    deadline = time.monotonic() + 5
    while True:
        found = [r.fields for r in caplog.records if r.name == "evald.request"]  # type: ignore[attr-defined]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


@pytest.fixture
def request_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """caplog capturing the request logger at INFO for the whole test."""
    caplog.set_level(logging.INFO, logger="evald.request")
    return caplog


def test_log_line_for_ok_call(channel: grpc.Channel, request_log: pytest.LogCaptureFixture) -> None:
    stub(channel, "v1").EvaluateInstances(exact_match_request("v1", SECRET, 3), timeout=10)
    (line,) = request_records(request_log)
    assert line["method"] == f"/{V1}/EvaluateInstances"
    assert line["metric"] == "exact_match_input"
    assert line["instances"] == 3
    assert line["code"] == "OK"
    assert isinstance(line["ms"], float)
    assert line["ms"] >= 0
    assert SECRET not in request_log.text


def test_a_stopped_server_has_written_its_log_lines(
    request_log: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls, "FLUSH_SECONDS", 60.0)  # only stop() can write the line in time
    with serving() as server, grpc.insecure_channel(server.address) as ch:
        stub(ch).EvaluateInstances(exact_match_request(count=2), timeout=10)
        assert server.running is not None
        server.call(server.running.stop(5))
        lines = [r.fields for r in request_log.records if r.name == "evald.request"]  # type: ignore[attr-defined]
        assert [(line["metric"], line["instances"]) for line in lines] == [("exact_match_input", 2)]


def test_log_line_for_invalid_argument(
    channel: grpc.Channel, request_log: pytest.LogCaptureFixture
) -> None:
    request = MESSAGES["v1beta1"].EvaluateInstancesRequest(location=SECRET)  # no metric input
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    (line,) = request_records(request_log)
    assert line["method"] == f"/{V1BETA1}/EvaluateInstances"
    assert line["metric"] == "none"
    assert line["instances"] == 0
    assert line["code"] == "INVALID_ARGUMENT"
    assert SECRET not in request_log.text


def test_log_line_for_a_call_past_its_deadline(
    channel: grpc.Channel, request_log: pytest.LogCaptureFixture
) -> None:
    before = calls_counted("DEADLINE_EXCEEDED")
    words = " ".join(f"w{i % 997}" for i in range(100_000))  # ROUGE-L: seconds of CPU
    request = MESSAGES["v1beta1"].EvaluateInstancesRequest(
        rouge_input={"instances": [{"prediction": words, "reference": words[::-1]}]}
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(request, timeout=0.3)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    (line,) = request_records(request_log)
    assert (line["metric"], line["instances"], line["code"]) == (
        "rouge_input",
        1,
        "DEADLINE_EXCEEDED",
    )
    assert calls_counted("DEADLINE_EXCEEDED") == before + 1


def calls_counted(code: str) -> float:
    calls.flush()
    value = REGISTRY.get_sample_value(
        "evald_requests_total",
        {"method": f"/{V1BETA1}/EvaluateInstances", "metric": "rouge_input", "code": code},
    )
    return value or 0.0


def test_log_line_for_undecodable_body(
    channel: grpc.Channel, request_log: pytest.LogCaptureFixture
) -> None:
    call = channel.unary_unary(
        f"/{V1BETA1}/EvaluateInstances", request_serializer=None, response_deserializer=None
    )
    with pytest.raises(grpc.RpcError) as caught:
        call(b"\xff\xff\xff", timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    (line,) = request_records(request_log)
    assert line["code"] == "INVALID_ARGUMENT"
    assert line["metric"] == "unknown"
    assert line["instances"] == 0
