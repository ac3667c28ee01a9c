"""The HTTP server: one aiohttp low-level handler that routes, transcodes and answers errors.

Every answer that is not a success is Google's ``{"error": {...}}`` shape; nothing the caller
sends can produce a stack trace or aiohttp's own HTML error pages.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Protocol
from urllib.parse import quote

from aiohttp import web
from aiohttp.web_protocol import RequestHandler, RequestPayloadError
from google.rpc import code_pb2, status_pb2

from evald import offload
from evald.call import CACHE_METADATA_KEY, USAGE_HEADER, USAGE_TRAILER
from evald.errors import EvalError, InvalidArgument, ResourceExhausted, internal_status
from evald.gateway import openapi, transcode
from evald.gateway.backends import Backend, CallError, Metadata, Reply
from evald.gateway.errors import error_body
from evald.gateway.routes import NotAllowed, Route, default_routes, resolve
from evald.ops import calls
from evald.ops.interceptor import OPENAPI_METHOD
from evald.ui import csrf, static

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
OPENAPI_PATH = "/openapi.json"
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
FORWARDED_HEADERS = (
    "authorization",
    "x-goog-api-key",
    "x-goog-user-project",
    "x-request-id",
    CACHE_METADATA_KEY,
)
"""Request headers passed on as gRPC metadata (the rest are HTTP-only)."""
CORS_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE"
"""Methods a preflight may ask for: every method a route or a native API answers."""
CORS_HEADERS = ", ".join(("content-type", "x-server-timeout", *FORWARDED_HEADERS))
"""Request headers a page may send: the ones the gateway reads (keys, timeout, JSON)."""
CORS_MAX_AGE = "600"
"""Seconds a browser may reuse a preflight answer."""
TRAILERS_AS_HEADERS = {USAGE_TRAILER: USAGE_HEADER}
"""Trailing metadata of a call passed on as response headers (success or failure)."""
CORS_EXPOSED = ", ".join(TRAILERS_AS_HEADERS.values())
HEALTH_RPC = "/grpc.health.v1.Health/Check"
"""The gRPC method ``/healthz`` stands for when deciding whether it needs a key."""
TIMEOUT_HEADER = "x-server-timeout"
"""Seconds the caller will wait (Google's header); becomes the call's deadline."""
INLINE_JSON_BYTES = 256 * 1024
"""Largest request body turned into a message on the event loop (~2 ms); a larger one is
parsed in a scoring process, where a hostile one cannot stall other calls."""
DEFAULT_MAX_JSON_VALUES = 4 * 100_000 + 1024
"""JSON objects and arrays any body may hold (more in a larger body: one per 16 bytes)."""


class _TooLarge(Exception):
    pass


class NativeApi(Protocol):
    """An API served as JSON over HTTP only, not transcoded from gRPC (NeMo Evaluator's):
    every path under ``prefix`` is its own."""

    prefix: str

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Callable[[str, list[tuple[str, str]]], object] | None,
        metadata: list[tuple[str, str]],
        read_body: Callable[[web.BaseRequest], Awaitable[bytes]],
        max_json_values: int,
    ) -> web.StreamResponse:
        """Answer one request (errors in the API's own shape); never raises."""
        ...  # pragma: no cover


class Gateway:
    """Serves the HTTP bindings of ``routes`` by calling ``backend``."""

    def __init__(
        self,
        backend: Backend,
        *,
        routes: Sequence[Route] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_json_values: int = DEFAULT_MAX_JSON_VALUES,
        body_pause_seconds: float = 15.0,
        native: Sequence[NativeApi] = (),
        cors_origins: Sequence[str] = (),
        home: bool = False,
    ) -> None:
        self.backend = backend
        self.home = home
        """Whether ``GET /`` redirects to the web UI (served by a native API at ``/ui``)."""
        self.cors_origins = frozenset(origin.lower() for origin in cors_origins)
        """Origins whose pages may call (``scheme://host[:port]``, lower case); none: no CORS."""
        self.native = list(native)
        self.routes = list(default_routes() if routes is None else routes)
        self._standard = routes is None
        """Whether ``routes`` are the standard ones, which a scoring process can rebuild."""
        self.max_body_bytes = max_body_bytes
        self.max_json_values = max_json_values
        self.body_pause_seconds = body_pause_seconds
        """Longest pause while a request body arrives (a slow sender holds a connection)."""
        self.serving = True
        self._in_flight: set[asyncio.Task[Reply]] = set()
        """Backend calls of HTTP requests being served."""
        self._cut_off = False
        """Set at the end of a graceful stop: calls still running answer 503."""
        self._openapi: bytes | None = None
        self.authenticate: Any = None
        """``(method, metadata) -> principal`` raising on bad credentials; checks ``/healthz``
        (RPCs are checked by the backend's interceptors)."""
        self.keys_required = False
        """Whether every call needs a key, as the OpenAPI document says (False also when the
        gRPC server behind a forwarding gateway decides)."""

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Answer one HTTP request; never raises."""
        start = time.perf_counter()
        origin = self._allowed_origin(request)
        response: web.StreamResponse
        if origin is not None and _is_preflight(request):
            # Before authentication: a browser sends a preflight without the key it will send.
            response = _preflight(origin)
        else:
            response = await self._answer(request)
            if origin is not None:
                response.headers["Access-Control-Allow-Origin"] = origin
                # Response headers a page's script may read beyond the CORS-safelisted ones.
                response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSED
        if self.cors_origins:  # the answer differs by Origin: caches must keep them apart
            response.headers.add("Vary", "Origin")
        log.debug(
            "http request",
            extra={
                "fields": {
                    "method": request.method,
                    "path": request.rel_url.raw_path,
                    "status": response.status,
                    "ms": round((time.perf_counter() - start) * 1000, 3),
                }
            },
        )
        return response

    def _allowed_origin(self, request: web.BaseRequest) -> str | None:
        """The request's ``Origin`` if pages from it may call, else None (no CORS headers)."""
        origin = request.headers.get("Origin")
        if origin is None or origin.lower() not in self.cors_origins:
            return None
        return origin

    async def _answer(self, request: web.BaseRequest) -> web.StreamResponse:
        path = request.rel_url.raw_path
        try:
            if path == HEALTH_PATH and request.method in ("GET", "HEAD"):
                if self.authenticate is not None:
                    self.authenticate(HEALTH_RPC, _metadata(request, {}))
                return await self._health()
            if path == OPENAPI_PATH and request.method in ("GET", "HEAD"):
                if self.authenticate is not None:
                    self.authenticate(OPENAPI_METHOD, _metadata(request, {}))
                return web.Response(body=self._openapi_document(), content_type="application/json")
            if path == "/" and self.home and request.method in ("GET", "HEAD"):
                return static.redirect_home()
            for api in self.native:
                if path.startswith(api.prefix):
                    if not self.serving:
                        return _error(code_pb2.UNAVAILABLE, "the server is shutting down")
                    refused = csrf.refusal(request, self.cors_origins)
                    if refused is not None:
                        return _error(code_pb2.PERMISSION_DENIED, refused, http=403)
                    return await api.answer(
                        request,
                        self.authenticate,
                        _metadata(request, {}),
                        self._read_body,
                        self._json_budget(request.content_length or 0),
                    )
            found = resolve(self.routes, request.method, path)
            if found is None:
                return _error(code_pb2.NOT_FOUND, f"no route for {request.method} {path}")
            if isinstance(found, NotAllowed):
                # grpc-gateway's answer for a known path with the wrong method.
                response = _error(
                    code_pb2.UNIMPLEMENTED,
                    f"{request.method} is not allowed on {path}; use {', '.join(found.allowed)}",
                    http=405,
                )
                response.headers["Allow"] = ", ".join(found.allowed)
                return response
            return await self._call(request, *found)
        except EvalError as exc:
            return _error_status(exc.to_status())
        except CallError as exc:
            response = _error_status(exc.status)
            response.headers.update(_trailer_headers(exc.trailers))
            return response
        except _SlowBody:
            response = _error(
                code_pb2.DEADLINE_EXCEEDED,
                f"the request body paused for more than {self.body_pause_seconds:g} s",
                http=408,
            )
            response.force_close()
            return response
        except _TooLarge:
            return _error(
                code_pb2.RESOURCE_EXHAUSTED,
                f"request body is larger than the limit of {self.max_body_bytes} bytes",
                http=413,
            )
        except Exception:
            log.exception("unexpected failure serving %s %s", request.method, path)
            return _error_status(internal_status())

    async def _call(
        self, request: web.BaseRequest, route: Route, bindings: dict[str, str]
    ) -> web.Response:
        if not self.serving:
            return _error(code_pb2.UNAVAILABLE, "the server is shutting down")
        int_enums = transcode.wants_int_enums(request.query_string)
        metadata = _metadata(request, bindings)
        if self.authenticate is not None:
            # From the headers, before the body is read: a caller without a valid key costs
            # nothing (the backend's interceptors check the call again, as for gRPC).
            try:
                self.authenticate(route.rpc, metadata)
            except EvalError as exc:
                calls.record(route.rpc, "none", 0, exc.code.name, 0.0)  # as a refused gRPC call
                raise
        body = await self._read_body(request)
        query = request.query_string
        if len(body) <= INLINE_JSON_BYTES or not self._standard:
            _check_json_values(body, self._json_budget(len(body)))
            request_bytes = transcode.parse_request(
                route, body, bindings, query
            ).SerializeToString()
        else:  # parsing holds the interpreter for its whole length: in a scoring process
            index = self.routes.index(route)
            budget = self._json_budget(len(body))
            request_bytes = await offload.call(_to_wire, index, body, bindings, query, budget)
        call = asyncio.ensure_future(
            self.backend.unary(route.rpc, request_bytes, metadata, _timeout(request))
        )
        self._in_flight.add(call)
        try:
            # A client that disconnects cancels this handler, and with it the call.
            answered = await call
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._cut_off and call.cancelled() and not (current and current.cancelling()):
                return _error(code_pb2.UNAVAILABLE, "the server stopped before the call finished")
            raise
        finally:
            self._in_flight.discard(call)
        reply = route.output_class.FromString(answered.body)
        if route.response_body:
            reply = getattr(reply, route.response_body)
        return web.Response(
            body=transcode.render(reply, int_enums=int_enums),
            content_type="application/json",
            headers=_trailer_headers(answered.trailers),
        )

    async def _read_body(self, request: web.BaseRequest) -> bytes:
        declared = request.content_length
        if declared is not None and declared > self.max_body_bytes:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        try:
            # Read decompressed (Content-Encoding), piece by piece: a small compressed body
            # that inflates past the limit is refused without inflating the rest.
            while chunk := await self._next_chunk(request):
                size += len(chunk)
                if size > self.max_body_bytes:
                    raise _TooLarge
                chunks.append(chunk)
        except RequestPayloadError:
            encoding = request.headers.get("Content-Encoding", "")[:40]
            cause = f"does not decode as {encoding!r}" if encoding else "is malformed"
            raise InvalidArgument("", f"the request body {cause}") from None
        return b"".join(chunks)

    async def _health(self) -> web.Response:
        serving = self.serving and await self.backend.healthy()
        return web.Response(
            status=200 if serving else 503,
            body=json.dumps({"status": "SERVING" if serving else "NOT_SERVING"}),
            content_type="application/json",
        )

    async def _next_chunk(self, request: web.BaseRequest) -> bytes:
        try:
            return await asyncio.wait_for(request.content.read(1 << 16), self.body_pause_seconds)
        except TimeoutError:
            raise _SlowBody from None

    async def drain(self, grace: float) -> None:
        """Let calls in flight finish for up to ``grace`` seconds; then cancel the rest, which
        answer 503 UNAVAILABLE (as gRPC calls get UNAVAILABLE at the end of the grace period),
        and give them a moment to send it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self._in_flight and loop.time() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - loop.time())))
        if not self._in_flight:
            return
        self._cut_off = True
        for call in list(self._in_flight):
            call.cancel()
        written = loop.time() + 0.5
        while self._in_flight and loop.time() < written:
            await asyncio.sleep(0.01)

    def _json_budget(self, size: int) -> int:
        """Most JSON objects and arrays a body of ``size`` bytes may hold (see
        :func:`_check_json_values`)."""
        return max(self.max_json_values, size // 16)

    def _openapi_document(self) -> bytes:
        if self._openapi is None:
            document = openapi.document(self.routes, keys_required=self.keys_required)
            self._openapi = json.dumps(document, separators=(",", ":")).encode()
        return self._openapi


def _check_json_values(body: bytes, budget: int) -> None:
    """Refuse a body with more JSON objects and arrays than ``budget`` before parsing it: a
    parsed one costs ~100 bytes whatever its size in the body (``[{},{},...]``), so a body
    costs at most a few times its size. Counted as ``{`` and ``[`` bytes, strings included:
    an upper bound, found at the speed of memory."""
    count = body.count(b"{") + body.count(b"[")
    if count > budget:
        raise ResourceExhausted(
            f"the request body holds up to {count} JSON objects and arrays, more than "
            f"{budget} for its size (one per 16 bytes, or {DEFAULT_MAX_JSON_VALUES})"
        )


@functools.cache
def _standard_routes() -> list[Route]:
    return list(default_routes())


def _to_wire(index: int, body: bytes, bindings: dict[str, str], query: str, budget: int) -> bytes:
    """Runs in a scoring process: a standard route's request, from JSON to protobuf bytes."""
    _check_json_values(body, budget)
    route = _standard_routes()[index]
    return transcode.parse_request(route, body, bindings, query).SerializeToString()


class _SlowBody(Exception):
    """The request body paused too long."""


class _ProtocolHandler(RequestHandler):
    """aiohttp's connection handler, answering HTTP protocol errors (a bad request line, a
    header too long, a malformed chunked body) in Google's error shape: aiohttp's own answer is
    plain text that quotes the offending request bytes back."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:  # a response is under way: the connection is lost
            raise ConnectionError("cannot answer an error after a response was started")
        log.debug("HTTP protocol error from %s: %s", request.remote, type(exc).__name__)
        code = _PROTOCOL_CODES.get(status, code_pb2.INTERNAL)
        try:
            reason = f"{status} {HTTPStatus(status).phrase}"
        except ValueError:
            reason = str(status)
        response = _error(code, f"the request is not valid HTTP ({reason})", http=status)
        response.force_close()
        return response

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.opened = self._loop.time()
        server = self._manager
        assert isinstance(server, _Server)
        # (Connections closed but not yet gone count as gone.)
        connections = [c for c in server.connections if c.transport is not None]
        if len(connections) > server.max_connections:
            # Over the cap, so idle connections cannot take every descriptor: the oldest one
            # without a request in progress makes room (a flood of idle connections cannot
            # lock callers out); if every one is busy, this one is closed.
            idle = [c for c in connections if c is not self and c.idle()]
            oldest = min(idle, key=lambda c: c.opened, default=self)
            server.refused += 1
            oldest.force_close()
            if oldest is self:
                return
        # No complete request head in time (a silent or byte-by-byte sender): closed. Kept-alive
        # connections are closed by aiohttp's own keep-alive timeout, set to the same value.
        self._loop.call_later(server.idle_seconds, self._head_overdue)

    def idle(self) -> bool:
        """Whether no request is being served on this connection."""
        return not self._request_in_progress

    def _head_overdue(self) -> None:
        if self._request_count == 0 and self.transport is not None:
            self.force_close()


_PROTOCOL_CODES = {
    400: code_pb2.INVALID_ARGUMENT,
    413: code_pb2.RESOURCE_EXHAUSTED,
    414: code_pb2.INVALID_ARGUMENT,
    431: code_pb2.INVALID_ARGUMENT,
    501: code_pb2.UNIMPLEMENTED,
}


class _Server(web.Server):
    """aiohttp's low-level server with :class:`_ProtocolHandler` connections, at most
    ``max_connections`` of them, each closed after ``idle_seconds`` without a request."""

    def __init__(self, *args: Any, idle_seconds: float, max_connections: int, **kwargs: Any):
        super().__init__(*args, keepalive_timeout=idle_seconds, **kwargs)
        self.idle_seconds = idle_seconds
        self.max_connections = max_connections
        self.refused = 0
        """Connections closed at once for being over the cap."""

    @property
    def connections(self) -> list[_ProtocolHandler]:  # type: ignore[override]
        return [c for c in super().connections if isinstance(c, _ProtocolHandler)]

    def __call__(self) -> RequestHandler:
        return _ProtocolHandler(self, loop=self._loop, **self._kwargs)


def _not_payload_error(record: logging.LogRecord) -> bool:
    """Drops aiohttp's log of a request body that did not decode: the gateway has answered
    it 400, and aiohttp's read of the rest of the body after the answer fails the same way."""
    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, RequestPayloadError)


@dataclass
class RunningGateway:
    """A listening gateway; :meth:`stop` shares the gRPC server's graceful shutdown."""

    gateway: Gateway
    runner: web.ServerRunner
    host: str
    port: int
    tls: bool = False
    owns_backend: bool = False
    grace_seconds: float = 10.0
    stopped: bool = field(default=False, init=False)

    @property
    def url(self) -> str:
        """Base URL to call, e.g. ``http://127.0.0.1:8080``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def enter_graceful_shutdown(self) -> None:
        """Health turns 503 and new RPC calls get UNAVAILABLE; in-flight calls go on."""
        self.gateway.serving = False

    async def stop(self, grace: float | None = None) -> None:
        """Stop listening; in-flight requests may finish within ``grace`` seconds (the
        ``grace_seconds`` given to :func:`start` unless set)."""
        if self.stopped:
            return
        self.stopped = True
        self.enter_graceful_shutdown()
        await self.gateway.drain(self.grace_seconds if grace is None else grace)
        # Every call has answered: aiohttp only closes idle connections now. It reads the
        # timeout from the runner; no public setter exists.
        self.runner._shutdown_timeout = 0.5
        await self.runner.cleanup()
        if self.owns_backend:
            await self.gateway.backend.close()


async def start(
    gateway: Gateway,
    host: str,
    port: int,
    *,
    ssl_context: ssl.SSLContext | None = None,
    grace_seconds: float = 10.0,
    owns_backend: bool = False,
    reuse_port: bool = False,
    idle_seconds: float = 15.0,
    max_connections: int = 1024,
) -> RunningGateway:
    """Listen on ``host:port`` (0 for any free port); raises OSError if it cannot bind."""
    logging.getLogger("aiohttp.server").addFilter(_not_payload_error)  # once: same object
    # handler_cancellation: a client that goes away cancels its call (custom code, judges).
    server = _Server(
        gateway.handle,
        access_log=None,
        handler_cancellation=True,
        idle_seconds=idle_seconds,
        max_connections=max_connections,
    )
    runner = web.ServerRunner(server, shutdown_timeout=grace_seconds)
    await runner.setup()
    # reuse_port: several ``evald serve --workers`` processes share the HTTP port too.
    site = web.TCPSite(runner, host, port, ssl_context=ssl_context, reuse_port=reuse_port or None)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound = runner.addresses[0][1]
    tls = ssl_context is not None
    return RunningGateway(gateway, runner, host, bound, tls, owns_backend, grace_seconds)


def _is_preflight(request: web.BaseRequest) -> bool:
    return request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers


def _preflight(origin: str) -> web.Response:
    """The answer to a CORS preflight from an allowed origin: which methods and headers the
    actual request may use. No ``Access-Control-Allow-Credentials``: keys travel in headers
    the page sets, never in cookies or browser-held HTTP authentication."""
    return web.Response(
        status=204,
        headers={
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": CORS_METHODS,
            "Access-Control-Allow-Headers": CORS_HEADERS,
            "Access-Control-Max-Age": CORS_MAX_AGE,
        },
    )


def _error(code: int, message: str, http: int | None = None) -> web.Response:
    return _error_status(status_pb2.Status(code=code, message=message), http)


def _error_status(status: status_pb2.Status, http: int | None = None) -> web.Response:
    body = error_body(status, http)
    return web.Response(
        status=body["error"]["code"],
        body=json.dumps(body, ensure_ascii=False).encode(),
        content_type="application/json",
    )


def _metadata(request: web.BaseRequest, bindings: dict[str, str]) -> list[tuple[str, str]]:
    metadata = [
        (name, request.headers[name])
        for name in FORWARDED_HEADERS
        if name in request.headers and request.headers[name].isascii()
    ]
    if bindings:
        # What the GAPIC clients send over gRPC for routing.
        params = "&".join(f"{k}={quote(v, safe='')}" for k, v in bindings.items())
        metadata.append(("x-goog-request-params", params))
    return metadata


def _trailer_headers(trailers: Metadata) -> dict[str, str]:
    """The response headers of a call's trailing metadata (:data:`TRAILERS_AS_HEADERS`)."""
    return {
        TRAILERS_AS_HEADERS[key]: value
        for key, value in trailers
        if key in TRAILERS_AS_HEADERS and isinstance(value, str)
    }


def _timeout(request: web.BaseRequest) -> float | None:
    raw = request.headers.get(TIMEOUT_HEADER)
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def tls_context(cert: Any, key: Any) -> ssl.SSLContext:
    """A server TLS context from PEM files (the gRPC server's certificate and key)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context
