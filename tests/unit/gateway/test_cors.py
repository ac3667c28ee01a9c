"""CORS: pages from the configured origins may call the gateway, its NeMo-style native APIs
included; preflights are answered before authentication; other origins get no CORS headers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from evald.config import Settings
from evald.gateway import Gateway, RunningGateway, start, start_forwarding
from evald.gateway.routes import routes_for
from evald.ops.auth import Unauthenticated

from tests.unit.gateway import fake_service
from tests.unit.gateway.test_app import FakeBackend

PAGE = "https://explorer.example.com"
KEY = "k"


class NativeEcho:
    """A native API (as NeMo Evaluator's routes are mounted): answers its own JSON."""

    prefix = "/v1/evaluation/"

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Callable[[str, list[tuple[str, str]]], object] | None,
        metadata: list[tuple[str, str]],
        read_body: Callable[[web.BaseRequest], Awaitable[bytes]],
        max_json_values: int,
    ) -> web.StreamResponse:
        return web.json_response({"native": True})


def require_key(method: str, metadata: list[tuple[str, str]]) -> object:
    if ("x-goog-api-key", KEY) not in metadata:
        raise Unauthenticated("missing key", "API_KEY_MISSING")
    return "caller"


@pytest.fixture
async def gateway() -> AsyncIterator[RunningGateway]:
    gateway = Gateway(
        FakeBackend(),
        routes=routes_for([fake_service.build()]),
        native=[NativeEcho()],
        cors_origins=[PAGE, "http://localhost:3000"],
    )
    gateway.authenticate = require_key
    running = await start(gateway, "127.0.0.1", 0)
    yield running
    await running.stop(0)


async def send(gateway: RunningGateway, method: str, path: str, **headers: str) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, gateway.url + path, headers=headers) as response,
    ):
        await response.read()
        return response


PREFLIGHT = {
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "x-goog-api-key, content-type",
}


@pytest.mark.parametrize("path", ["/v1/things/t", "/v1/evaluation/jobs", "/openapi.json"])
async def test_preflight_from_an_allowed_origin_needs_no_key(
    gateway: RunningGateway, path: str
) -> None:
    response = await send(gateway, "OPTIONS", path, Origin=PAGE, **PREFLIGHT)
    assert response.status == 204
    headers = response.headers
    assert headers["Access-Control-Allow-Origin"] == PAGE
    allowed = {h.strip() for h in headers["Access-Control-Allow-Headers"].split(",")}
    assert {"x-goog-api-key", "authorization", "content-type"} <= allowed
    assert {"GET", "POST", "DELETE"} <= {
        m.strip() for m in headers["Access-Control-Allow-Methods"].split(",")
    }
    assert "Access-Control-Allow-Credentials" not in headers
    assert "Origin" in headers.getall("Vary")


@pytest.mark.parametrize("path", ["/v1/things/t", "/v1/evaluation/jobs"])
async def test_calls_from_an_allowed_origin_echo_it(gateway: RunningGateway, path: str) -> None:
    response = await send(gateway, "GET", path, Origin=PAGE, **{"x-goog-api-key": KEY})
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] == PAGE
    assert "Origin" in response.headers.getall("Vary")
    # A page's script may read the judge usage header.
    assert response.headers["Access-Control-Expose-Headers"] == "x-evald-judge-usage"


async def test_a_refused_call_still_carries_the_origin(gateway: RunningGateway) -> None:
    """So the page can read the 401 and tell the user, instead of a bare network error."""
    response = await send(gateway, "GET", "/v1/things/t", Origin=PAGE)
    assert response.status == 401
    assert response.headers["Access-Control-Allow-Origin"] == PAGE


@pytest.mark.parametrize(
    "origin", ["https://evil.example.com", "https://explorer.example.com.evil"]
)
async def test_other_origins_get_no_cors_headers(gateway: RunningGateway, origin: str) -> None:
    preflight = await send(gateway, "OPTIONS", "/v1/things/t", Origin=origin, **PREFLIGHT)
    assert preflight.status in (401, 405)  # not a preflight answer: the request as it is
    call = await send(gateway, "GET", "/v1/things/t", Origin=origin, **{"x-goog-api-key": KEY})
    assert call.status == 200
    for response in (preflight, call):
        assert not any(h.startswith("Access-Control-") for h in response.headers)


async def test_origins_compare_without_case(gateway: RunningGateway) -> None:
    response = await send(gateway, "GET", "/healthz", Origin="HTTP://LOCALHOST:3000")
    assert response.headers["Access-Control-Allow-Origin"] == "HTTP://LOCALHOST:3000"


async def test_no_origins_configured_means_no_cors() -> None:
    running = await start(
        Gateway(FakeBackend(), routes=routes_for([fake_service.build()])), "127.0.0.1", 0
    )
    try:
        response = await send(running, "OPTIONS", "/v1/things/t", Origin=PAGE, **PREFLIGHT)
        assert response.status == 405
        assert not any(h.startswith("Access-Control-") or h == "Vary" for h in response.headers)
    finally:
        await running.stop(0)


async def test_the_setting_reaches_the_gateway() -> None:
    """``--cors-origin`` (Settings.cors_origins) configures the gateway ``evald serve`` and
    ``evald gateway`` start; a preflight never reaches the gRPC server behind it."""
    settings = Settings(http_port=0, cors_origins=(PAGE,))
    running = await start_forwarding(settings, "127.0.0.1:9")
    try:
        response = await send(
            running, "OPTIONS", "/v1beta1:evaluateInstances", Origin=PAGE, **PREFLIGHT
        )
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == PAGE
    finally:
        await running.stop(0)
