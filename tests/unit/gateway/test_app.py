"""The HTTP layer with a fake backend (the Backend seam): routing, bodies, limits, errors."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from evald.gateway import CallError, Gateway, Reply, RunningGateway, start
from evald.gateway.routes import routes_for
from google.protobuf.message_factory import GetMessageClass
from google.rpc import code_pb2, status_pb2

from tests.unit.gateway import fake_service

SERVICE = fake_service.build()
THING = GetMessageClass(SERVICE.methods_by_name["GetThing"].output_type)
REQUEST = GetMessageClass(SERVICE.methods_by_name["GetThing"].input_type)


class FakeBackend:
    """Records calls; answers a Thing named after the request, or a configured failure."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, dict[str, str], float | None]] = []
        self.fail: Exception | None = None
        self.up = True

    async def unary(
        self, rpc: str, request: bytes, metadata: Any, timeout: float | None = None
    ) -> Reply:
        parsed: Any = REQUEST.FromString(request)
        self.calls.append((rpc, parsed, dict(metadata), timeout))
        if self.fail is not None:
            raise self.fail
        thing = THING(name=parsed.name, display_name=parsed.thing.display_name)
        return Reply(thing.SerializeToString())

    async def healthy(self) -> bool:
        return self.up

    async def close(self) -> None:
        return None


@pytest.fixture
def backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
async def gateway(backend: FakeBackend) -> AsyncIterator[RunningGateway]:
    running = await start(
        Gateway(backend, routes=routes_for([SERVICE]), max_body_bytes=1000), "127.0.0.1", 0
    )
    yield running
    await running.stop(0)


async def fetch(
    gateway: RunningGateway, method: str, path: str, body: bytes | None = None, **headers: str
) -> tuple[int, Any, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method,
            gateway.url + path,
            data=body,
            headers={k.replace("_", "-"): v for k, v in headers.items()},
        ) as response,
    ):
        return response.status, await response.json(content_type=None), response.headers


async def test_get_with_path_variables(gateway: RunningGateway, backend: FakeBackend) -> None:
    status, body, _ = await fetch(gateway, "GET", "/v1/shelves/s1/a/b", x_goog_api_key="k")
    assert (status, body) == (200, {"name": "a/b"})
    ((rpc, request, metadata, timeout),) = backend.calls
    assert rpc == "/test.things.v1.Things/GetThing"
    assert (request.name, request.inner.shelf_id) == ("a/b", "s1")
    params = set(metadata["x-goog-request-params"].split("&"))
    assert params == {"name=a%2Fb", "inner.shelf_id=s1"}
    assert metadata["x-goog-api-key"] == "k"
    assert timeout is None


async def test_body_into_a_field(gateway: RunningGateway, backend: FakeBackend) -> None:
    status, body, _ = await fetch(
        gateway, "PATCH", "/v1/things/t1", b'{"display_name": "T", "name": "ignored"}'
    )
    assert (status, body) == (200, {"name": "things/t1", "displayName": "T"})


async def test_custom_verb_and_timeout_header(
    gateway: RunningGateway, backend: FakeBackend
) -> None:
    status, _, _ = await fetch(
        gateway, "PURGE", "/v1/things/t1:purge", b'{"thing": {}}', x_server_timeout="2.5"
    )
    assert status == 200
    assert backend.calls[0][3] == 2.5


STATUSES = [
    (code_pb2.INVALID_ARGUMENT, 400, "INVALID_ARGUMENT"),
    (code_pb2.UNIMPLEMENTED, 501, "UNIMPLEMENTED"),
    (code_pb2.UNAVAILABLE, 503, "UNAVAILABLE"),
    (code_pb2.DEADLINE_EXCEEDED, 504, "DEADLINE_EXCEEDED"),
]


@pytest.mark.parametrize(("code", "http", "name"), STATUSES)
async def test_backend_status_becomes_google_error(
    gateway: RunningGateway, backend: FakeBackend, code: int, http: int, name: str
) -> None:
    backend.fail = CallError(status_pb2.Status(code=code, message="nope"))
    status, body, _ = await fetch(gateway, "GET", "/v1/things/t")
    assert status == http
    assert body == {"error": {"code": http, "message": "nope", "status": name}}


async def test_unexpected_failure_is_500_without_a_trace(
    gateway: RunningGateway, backend: FakeBackend
) -> None:
    backend.fail = RuntimeError("secret internals")
    status, body, _ = await fetch(gateway, "GET", "/v1/things/t")
    assert status == 500
    assert body["error"]["status"] == "INTERNAL"
    assert "secret" not in json.dumps(body)
    assert "Traceback" not in json.dumps(body)


async def test_unknown_path_and_wrong_method(gateway: RunningGateway) -> None:
    status, body, _ = await fetch(gateway, "GET", "/v2/x")
    assert (status, body["error"]["status"], body["error"]["code"]) == (404, "NOT_FOUND", 404)
    status, body, headers = await fetch(gateway, "DELETE", "/v1/things/t")
    assert (status, body["error"]["status"], body["error"]["code"]) == (405, "UNIMPLEMENTED", 405)
    assert headers["Allow"] == "GET, PATCH"


async def test_body_over_the_limit_is_413(gateway: RunningGateway, backend: FakeBackend) -> None:
    big = json.dumps({"thing": {"displayName": "x" * 2000}}).encode()
    status, body, _ = await fetch(gateway, "PURGE", "/v1/things/t:purge", big)
    assert status == 413
    assert body["error"] == {
        "code": 413,
        "message": "request body is larger than the limit of 1000 bytes",
        "status": "RESOURCE_EXHAUSTED",
    }
    assert backend.calls == []


async def test_chunked_body_over_the_limit_is_413(gateway: RunningGateway) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(30):
            yield b" " * 100

    async with (
        aiohttp.ClientSession() as session,
        session.request("PURGE", gateway.url + "/v1/things/t:purge", data=chunks()) as response,
    ):
        assert response.status == 413


async def test_bad_json_is_400(gateway: RunningGateway) -> None:
    status, body, _ = await fetch(gateway, "PURGE", "/v1/things/t:purge", b"{oops")
    assert status == 400
    assert body["error"]["status"] == "INVALID_ARGUMENT"
    assert "not valid JSON" in body["error"]["message"]


async def test_health_and_shutdown(gateway: RunningGateway, backend: FakeBackend) -> None:
    assert (await fetch(gateway, "GET", "/healthz"))[:2] == (200, {"status": "SERVING"})
    backend.up = False
    assert (await fetch(gateway, "GET", "/healthz"))[:2] == (503, {"status": "NOT_SERVING"})
    backend.up = True
    gateway.enter_graceful_shutdown()
    assert (await fetch(gateway, "GET", "/healthz"))[:2] == (503, {"status": "NOT_SERVING"})
    status, body, _ = await fetch(gateway, "GET", "/v1/things/t")
    assert (status, body["error"]["status"]) == (503, "UNAVAILABLE")
