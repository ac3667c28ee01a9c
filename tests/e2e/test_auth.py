"""Authentication end to end, on both transports: missing, wrong, expired and valid keys, open
health, closed reflection, mTLS, and no trace of any key in the logs."""

from __future__ import annotations

import http.client
import json
import logging
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.logs import JsonFormatter
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.http_support import http_url, post, request
from tests.support import MESSAGES, ServerThread, serving, stub
from tests.tls import self_signed

VALID = "evald-test-VALID-key-93ac1e"
EXPIRED = "evald-test-EXPIRED-key-11bf07"
WRONG = "evald-test-WRONG-key-5d2e88"
SECRETS = (VALID, EXPIRED, WRONG)
PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
BODY = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}


def exact_request() -> Any:
    m = MESSAGES["v1beta1"]
    return m.EvaluateInstancesRequest(
        exact_match_input=m.ExactMatchInput(
            instances=[m.ExactMatchInstance(prediction="a", reference="a")]
        )
    )


@pytest.fixture(scope="module")
def keys_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("auth") / "keys.toml"
    path.write_text(
        f'[[keys]]\nname = "ci"\nkey = "{VALID}"\nexpires = 2999-12-31T00:00:00Z\n\n'
        f'[[keys]]\nname = "retired"\nkey = "{EXPIRED}"\nexpires = 2020-01-01T00:00:00Z\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def secured(keys_file: Path) -> Iterator[ServerThread]:
    with serving(auth_keys_file=keys_file, http_port=0) as running:
        yield running


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every log record at DEBUG, to check that no key shows up in any of them."""
    with caplog.at_level(logging.DEBUG):
        yield caplog
    formatter = JsonFormatter()
    text = "\n".join(formatter.format(record) for record in caplog.records)
    for secret in SECRETS:
        assert secret not in text


CREDENTIALS = [
    # (metadata / headers, expected code, ErrorInfo reason)
    ((), "UNAUTHENTICATED", "CREDENTIALS_MISSING"),
    ((("authorization", f"Bearer {WRONG}"),), "UNAUTHENTICATED", "API_KEY_INVALID"),
    ((("x-goog-api-key", WRONG),), "UNAUTHENTICATED", "API_KEY_INVALID"),
    ((("authorization", f"Bearer {EXPIRED}"),), "UNAUTHENTICATED", "API_KEY_EXPIRED"),
    ((("x-goog-api-key", EXPIRED),), "UNAUTHENTICATED", "API_KEY_EXPIRED"),
    ((("authorization", f"Basic {VALID}"),), "UNAUTHENTICATED", "CREDENTIALS_MISSING"),
    ((("authorization", f"Bearer {VALID}"),), "OK", None),
    ((("x-goog-api-key", VALID),), "OK", None),
]


def reason_of(status: status_pb2.Status) -> str:
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "evald"
    return str(info.reason)


@pytest.mark.parametrize(("metadata", "code", "reason"), CREDENTIALS)
def test_grpc(
    secured: ServerThread,
    logged: pytest.LogCaptureFixture,
    metadata: tuple[tuple[str, str], ...],
    code: str,
    reason: str | None,
) -> None:
    with grpc.insecure_channel(secured.address) as channel:
        call = stub(channel).EvaluateInstances.with_call
        if code == "OK":
            response, _ = call(exact_request(), metadata=metadata)
            assert response.exact_match_results.exact_match_metric_values[0].score == 1.0
            return
        with pytest.raises(grpc.RpcError) as caught:
            call(exact_request(), metadata=metadata)
    err: Any = caught.value
    assert err.code().name == code
    status = status_pb2.Status.FromString(dict(err.trailing_metadata())["grpc-status-details-bin"])
    assert reason_of(status) == reason
    assert not any(secret in str(err.details()) for secret in SECRETS)


@pytest.mark.parametrize(("metadata", "code", "reason"), CREDENTIALS)
def test_http(
    secured: ServerThread,
    logged: pytest.LogCaptureFixture,
    metadata: tuple[tuple[str, str], ...],
    code: str,
    reason: str | None,
) -> None:
    status, body = post(http_url(secured), PATH, BODY, **dict(metadata))
    if code == "OK":
        assert status == 200
        assert body["exactMatchResults"]["exactMatchMetricValues"] == [{"score": 1.0}]
        return
    # Google's error shape, as the REST clients read it.
    assert status == 401
    assert body["error"]["code"] == 401
    assert body["error"]["status"] == "UNAUTHENTICATED"
    (detail,) = body["error"]["details"]
    assert detail["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert detail["reason"] == reason
    assert not any(secret in json.dumps(body) for secret in SECRETS)


def test_metric_registry_needs_a_key_too(secured: ServerThread) -> None:
    status, body, _ = request(
        http_url(secured), "GET", "/v1beta1/projects/p/locations/l/evaluationMetrics"
    )
    assert (status, body["error"]["status"]) == (401, "UNAUTHENTICATED")
    status, _, _ = request(
        http_url(secured),
        "GET",
        "/v1beta1/projects/p/locations/l/evaluationMetrics",
        headers={"x-goog-api-key": VALID},
    )
    assert status != 401


def test_health_is_open_by_default(secured: ServerThread) -> None:
    with grpc.insecure_channel(secured.address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    status, body, _ = request(http_url(secured), "GET", "/healthz")
    assert (status, body) == (200, {"status": "SERVING"})


def test_openapi_needs_a_key_by_default(secured: ServerThread) -> None:
    status, body, _ = request(http_url(secured), "GET", "/openapi.json")
    assert (status, body["error"]["status"]) == (401, "UNAUTHENTICATED")
    status, body, _ = request(
        http_url(secured), "GET", "/openapi.json", headers={"x-goog-api-key": VALID}
    )
    assert status == 200
    assert body["openapi"].startswith("3.")
    assert body["security"] == [{"apiKey": []}, {"bearer": []}]  # no empty requirement: a key


def test_openapi_can_be_opened(keys_file: Path) -> None:
    with serving(auth_keys_file=keys_file, http_port=0, auth_open_openapi=True) as running:
        status, body, _ = request(http_url(running), "GET", "/openapi.json")
    assert status == 200
    assert body["openapi"].startswith("3.")


def reflect(address: str, metadata: tuple[tuple[str, str], ...] = ()) -> Any:
    with grpc.insecure_channel(address) as channel:
        stub_ = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = stub_.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), metadata=metadata
        )
        return next(iter(replies))


def test_reflection_is_closed_by_default(secured: ServerThread) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        reflect(secured.address)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    reply = reflect(secured.address, (("x-goog-api-key", VALID),))
    names = {s.name for s in reply.list_services_response.service}
    assert "google.cloud.aiplatform.v1beta1.EvaluationService" in names


def test_open_reflection_and_closed_health(keys_file: Path) -> None:
    with serving(
        auth_keys_file=keys_file, auth_open_reflection=True, auth_open_health=False, http_port=0
    ) as running:
        assert reflect(running.address).list_services_response.service
        with grpc.insecure_channel(running.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                health.Check(health_pb2.HealthCheckRequest())
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            reply = health.Check(
                health_pb2.HealthCheckRequest(), metadata=(("x-goog-api-key", VALID),)
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        status, _, _ = request(http_url(running), "GET", "/healthz")
        assert status == 401
        status, _, _ = request(
            http_url(running), "GET", "/healthz", headers={"x-goog-api-key": VALID}
        )
        assert status == 200


def test_keys_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALD_API_KEYS", f"other-key,{VALID}")
    with serving(http_port=0) as running:
        status, _ = post(http_url(running), PATH, BODY, **{"x-goog-api-key": VALID})
        assert status == 200
        status, _ = post(http_url(running), PATH, BODY)
        assert status == 401


def test_without_keys_the_server_is_open(server: ServerThread) -> None:
    with grpc.insecure_channel(server.address) as channel:
        stub(channel).EvaluateInstances(exact_request())


def test_unreadable_keys_file_fails_at_start(tmp_path: Path) -> None:
    import asyncio

    from evald.config import Settings
    from evald.server import start

    with pytest.raises(OSError, match="cannot read keys file"):
        asyncio.run(start(Settings(port=0, auth_keys_file=tmp_path / "absent.toml")))


# --- mTLS -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A server certificate, and a client certificate that is its own CA."""
    server_cert, server_key = self_signed(tmp_path_factory.mktemp("server"))
    client_cert, client_key = self_signed(tmp_path_factory.mktemp("client"), "evald-client")
    stranger_cert, stranger_key = self_signed(tmp_path_factory.mktemp("stranger"), "stranger")
    return {
        "server_cert": server_cert,
        "server_key": server_key,
        "client_cert": client_cert,
        "client_key": client_key,
        "stranger_cert": stranger_cert,
        "stranger_key": stranger_key,
    }


@pytest.fixture(scope="module")
def mtls(pki: dict[str, Path]) -> Iterator[ServerThread]:
    with serving(
        tls_cert=pki["server_cert"],
        tls_key=pki["server_key"],
        tls_client_ca=pki["client_cert"],
        http_port=0,
    ) as running:
        yield running


@pytest.mark.parametrize(("who", "works"), [("client", True), ("stranger", False), (None, False)])
def test_mtls_grpc(mtls: ServerThread, pki: dict[str, Path], who: str | None, works: bool) -> None:
    extra: dict[str, bytes] = {}
    if who is not None:
        extra = {
            "private_key": pki[f"{who}_key"].read_bytes(),
            "certificate_chain": pki[f"{who}_cert"].read_bytes(),
        }
    credentials = grpc.ssl_channel_credentials(pki["server_cert"].read_bytes(), **extra)
    with grpc.secure_channel(mtls.address, credentials) as channel:
        call = stub(channel).EvaluateInstances
        if works:
            assert call(exact_request(), timeout=10).exact_match_results
        else:
            with pytest.raises(grpc.RpcError) as caught:
                call(exact_request(), timeout=10)
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize(("who", "works"), [("client", True), ("stranger", False), (None, False)])
def test_mtls_http(mtls: ServerThread, pki: dict[str, Path], who: str | None, works: bool) -> None:
    context = ssl.create_default_context(cafile=str(pki["server_cert"]))
    if who is not None:
        context.load_cert_chain(str(pki[f"{who}_cert"]), str(pki[f"{who}_key"]))
    assert mtls.running is not None
    assert mtls.running.http is not None
    connection = http.client.HTTPSConnection(
        "127.0.0.1", mtls.running.http.port, context=context, timeout=10
    )

    def get() -> int:
        connection.request("GET", "/healthz")
        return connection.getresponse().status

    try:
        if works:
            assert get() == 200
        else:
            # TLS 1.3 reports a refused client certificate on the first read, not the handshake.
            with pytest.raises((ssl.SSLError, ConnectionError)):
                get()
    finally:
        connection.close()


def test_client_ca_needs_tls(pki: dict[str, Path]) -> None:
    from evald.config import Settings

    with pytest.raises(ValueError, match="need TLS"):
        Settings(tls_client_ca=pki["client_cert"])
