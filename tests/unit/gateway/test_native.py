"""What the JSON-only APIs share: their route tables and how a handler's failure is answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from evald.errors import EvalError, InvalidArgument, NotFound
from evald.gateway import native

TABLE = native.RouteTable(
    "/v1/things",
    [
        ("GET", r"", "List", "list"),
        ("POST", r"", "Create", "create"),
        ("GET", r"/(?P<id>[^/]+)", "Get", "get"),
        ("DELETE", r"/(?P<id>[^/]+)", "Delete", "delete"),
    ],
)


@pytest.mark.parametrize(
    ("method", "path", "found"),
    [
        ("GET", "/v1/things", ("GET", "List", "list", {})),
        ("GET", "/v1/things/", ("GET", "List", "list", {})),
        ("POST", "/v1/things", ("POST", "Create", "create", {})),
        ("GET", "/v1/things/a%2Fb", ("GET", "Get", "get", {"id": "a/b"})),
        ("DELETE", "/v1/things/x", ("DELETE", "Delete", "delete", {"id": "x"})),
        ("PUT", "/v1/things", ["GET", "POST"]),
        ("HEAD", "/v1/things/x", ["DELETE", "GET"]),
        ("GET", "/v1/things/x/y", []),
        ("GET", "/v1/thingsx", []),
    ],
)
def test_routes_are_found_or_the_allowed_methods_named(
    method: str, path: str, found: tuple[str, str, str, dict[str, str]] | list[str]
) -> None:
    got = TABLE.find(method, path)
    if isinstance(found, list):
        assert got == found
    else:
        assert not isinstance(got, list)
        assert (got.method, got.name, got.handler, got.params) == found


def test_head_is_served_as_get_only_when_asked() -> None:
    table = native.RouteTable("/v1/things", [("GET", r"", "List", "list")], head_as_get=True)
    found = table.find("HEAD", "/v1/things")
    assert not isinstance(found, list)
    assert (found.method, found.name) == ("GET", "List")


def _answer(text: str, status: int = 200) -> web.Response:
    return web.Response(status=status, text=text)


def _refuse(exc: EvalError) -> web.Response:
    return _answer(f"{type(exc).__name__}: {exc.message}", 400)


async def _raising(exc: BaseException) -> web.Response:
    raise exc


async def _ok() -> web.Response:
    return _answer("ok")


@pytest.mark.parametrize(
    ("serve", "status", "text"),
    [
        (_ok, 200, "ok"),
        (lambda: _raising(NotFound("no such thing")), 400, "NotFound: no such thing"),
        (lambda: _raising(RecursionError()), 400, "InvalidArgument: the body nests too deeply"),
        (lambda: _raising(ValueError("a bug")), 500, "failed"),
    ],
)
async def test_failures_are_answered_in_the_api_s_shape(
    serve: Callable[[], Awaitable[web.Response]],
    status: int,
    text: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="evald.gateway.native"):
        answer = await native.guarded(
            serve(),
            _refuse,
            lambda: _answer("failed", 500),
            "GET List",
        )
    assert isinstance(answer, web.Response)
    assert (answer.status, answer.text) == (status, text)
    logged = [r.getMessage() for r in caplog.records]
    assert logged == (["unexpected failure serving GET List"] if status == 500 else [])


async def test_cancellation_passes() -> None:
    with pytest.raises(asyncio.CancelledError):
        await native.guarded(
            _raising(asyncio.CancelledError()), _refuse, lambda: _answer("failed", 500), "GET"
        )


def test_an_invalid_argument_keeps_its_class() -> None:
    # The refusal sees the error itself (its class and field violations), not a copy.
    seen: list[EvalError] = []
    error = InvalidArgument("body.name", "required")

    def refuse(exc: EvalError) -> web.Response:
        seen.append(exc)
        return _answer("refused", 400)

    asyncio.run(native.guarded(_raising(error), refuse, lambda: _answer("x", 500), "POST"))
    assert seen == [error]
