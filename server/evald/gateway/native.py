"""What the JSON-only APIs served beside the transcoded routes (NeMo Evaluator's, human
evaluation's, the web UI's runs) share: their route tables, how a request's JSON body and query
are read, and how a handler's failure becomes an answer."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl, unquote

from aiohttp import web

from evald.errors import EvalError, InvalidArgument

log = logging.getLogger(__name__)

INLINE_JSON_BYTES = 256 * 1024
"""Larger bodies are parsed in a thread, so a big one does not hold the event loop."""

ReadBody = Callable[[web.BaseRequest], Awaitable[bytes]]
"""The gateway's body reader: size-capped, and bounded in time between chunks."""
Authenticate = Callable[[str, list[tuple[str, str]]], object]
"""``(method, metadata) -> principal``, raising on bad credentials."""

H = TypeVar("H")


@dataclass(frozen=True)
class Found(Generic[H]):
    """The route a request took."""

    method: str
    """The route's HTTP method (``GET`` for a ``HEAD`` request a table serves as ``GET``)."""
    name: str
    """The method's name for authentication, logs and metrics (e.g. ``/evald.runs/GetRun``)."""
    handler: H
    params: dict[str, str]
    """The path's parameters, percent-decoded."""


class RouteTable(Generic[H]):
    """An API's routes: (HTTP method, path pattern under ``prefix``, name, handler). A path
    matches with or without a trailing slash; named groups become the parameters."""

    def __init__(
        self,
        prefix: str,
        routes: Iterable[tuple[str, str, str, H]],
        head_as_get: bool = False,
    ) -> None:
        self.head_as_get = head_as_get
        self.routes = [
            (method, re.compile(f"^{re.escape(prefix)}{pattern}/?$"), name, handler)
            for method, pattern, name, handler in routes
        ]

    def find(self, method: str, path: str) -> Found[H] | list[str]:
        """The route of ``method`` on ``path``, or else the methods the path allows (none: an
        unknown path)."""
        allowed = []
        for want, pattern, name, handler in self.routes:
            match = pattern.match(path)
            if match is None:
                continue
            if want == method or (self.head_as_get and want == "GET" and method == "HEAD"):
                params = {k: unquote(v) for k, v in match.groupdict().items()}
                return Found(want, name, handler, params)
            allowed.append(want)
        return sorted(set(allowed))


async def json_body(request: web.BaseRequest, read_body: ReadBody, max_json_values: int) -> Any:
    """The request's body as JSON (``null`` when empty); InvalidArgument when it is not JSON or
    holds more objects and arrays than ``max_json_values`` (one per 16 bytes in a larger body),
    counted before parsing."""
    raw = await read_body(request)
    if raw.count(b"{") + raw.count(b"[") > max(max_json_values, len(raw) // 16):
        raise InvalidArgument("", "the request body holds too many JSON objects and arrays")
    try:
        if len(raw) <= INLINE_JSON_BYTES:
            return json.loads(raw or b"null")
        return await asyncio.to_thread(json.loads, raw)
    except ValueError as exc:
        raise InvalidArgument("", f"the request body is not JSON: {exc}") from None


def query(request: web.BaseRequest) -> dict[str, str]:
    """The request's query parameters (the last value of a repeated one; blank ones kept)."""
    return dict(parse_qsl(request.rel_url.raw_query_string, keep_blank_values=True))


async def guarded(
    serve: Awaitable[web.StreamResponse],
    refuse: Callable[[EvalError], web.StreamResponse],
    failed: Callable[[], web.StreamResponse],
    what: str,
) -> web.StreamResponse:
    """``serve``'s answer. An EvalError is answered by ``refuse`` in the API's own error shape
    (a body nesting too deeply for the parser is an InvalidArgument); any other failure is
    logged (``what``: method and route) and answered by ``failed``; cancellation passes."""
    try:
        return await serve
    except EvalError as exc:
        return refuse(exc)
    except RecursionError:
        return refuse(InvalidArgument("", "the body nests too deeply"))
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unexpected failure serving %s", what)
        return failed()
