"""The HTTP clients judges send through: pooled, and reading at most :data:`MAX_ANSWER_BYTES` of
any response, so a judge that answers without end cannot fill the server's memory (or cache).

:class:`JudgeHttp` is one judge's connections. The REST backends POST through
:mod:`evald.judges.http1`: a judge call is one small JSON exchange, and writing it whole and
parsing its answer in place costs a fraction of what an HTTP library's client spends on it.
An SDK that takes an httpx client (google-genai, for Vertex AI's application-default
credentials) gets one from :func:`pooled_client`, made on first use.
"""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator, Callable, Mapping

import httpx

from evald.judges.http1 import Answer, ExchangeFailed, Http1Client, TooLarge, too_large

__all__ = [
    "MAX_ANSWER_BYTES",
    "Answer",
    "AnswerTooLarge",
    "ExchangeFailed",
    "JudgeHttp",
    "TooLarge",
    "connection_failed",
    "pooled_client",
    "shown_url",
]

MAX_ANSWER_BYTES = 4 * 1024 * 1024
"""Largest HTTP response body read from a judge (the answer text is inside it)."""


class AnswerTooLarge(httpx.ReadError):
    """A judge's response is larger than the cap: a transport error (to an SDK too), so it is
    retried like other unreadable answers and never cached."""


SHARD_CONNECTIONS = 8
"""Connections per httpx pool. An httpx pool checks each of its connections (a system call for
an idle one) whenever a request starts or ends, so one pool of 1,000 connections spends more
CPU on that than on the calls; small pools, each request sent to the least busy, keep it
constant."""


OPEN_CONNECTIONS = 100
"""Connections a pool may open beyond those it keeps (httpx's default): callers bound their
calls in flight themselves (a judge's ``max_concurrency``), and may share one client between
several endpoints, each with its own bound."""


def pooled_client(max_connections: int, max_bytes: int = MAX_ANSWER_BYTES) -> httpx.AsyncClient:
    """An HTTP client that keeps up to about ``max_connections`` connections alive, reads at
    most ``max_bytes`` of a response, and times nothing out itself (calls carry their timeouts).

    Its pools open what the calls in flight need (at least :data:`OPEN_CONNECTIONS` each), so
    ``max_connections`` calls at once never wait for a connection."""
    shards = max(1, math.ceil(max_connections / SHARD_CONNECTIONS))
    each = math.ceil(max_connections / shards)
    limits = httpx.Limits(
        max_connections=max(each, OPEN_CONNECTIONS), max_keepalive_connections=each
    )
    tls = httpx.create_ssl_context()  # one for all pools: loading the CA store takes ~20 ms
    pools = [httpx.AsyncHTTPTransport(verify=tls, limits=limits) for _ in range(shards)]
    return httpx.AsyncClient(timeout=None, transport=_CappedTransport(pools, max_bytes))


class _CappedTransport(httpx.AsyncBaseTransport):
    """Sends each request through the pool with the fewest requests under way, and caps the
    size of its response."""

    def __init__(self, pools: list[httpx.AsyncHTTPTransport], max_bytes: int) -> None:
        self.pools = pools
        self.busy = [0] * len(pools)
        """Requests under way per pool (sent, response not yet closed)."""
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        busy = self.busy
        index = busy.index(min(busy))
        busy[index] += 1
        try:
            response = await self.pools[index].handle_async_request(request)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                await response.aclose()
                raise AnswerTooLarge(too_large(self.max_bytes), request=request)
        except BaseException:
            busy[index] -= 1
            raise
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_CappedStream(stream, self.max_bytes, request, lambda: self._done(index)),
            extensions=response.extensions,
        )

    def _done(self, index: int) -> None:
        self.busy[index] -= 1

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()


class _CappedStream(httpx.AsyncByteStream):
    def __init__(
        self,
        inner: httpx.AsyncByteStream,
        max_bytes: int,
        request: httpx.Request,
        done: Callable[[], None],
    ):
        self.inner = inner
        self.max_bytes = max_bytes
        self.request = request
        self.done: Callable[[], None] | None = done
        """Told once, when the response is closed."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self.inner:
            read += len(chunk)
            if read > self.max_bytes:
                raise AnswerTooLarge(too_large(self.max_bytes), request=self.request)
            yield chunk

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            done, self.done = self.done, None
            if done is not None:
                done()


class JudgeHttp:
    """One judge's connections: :meth:`post` for the REST backends, :meth:`httpx_client` for an
    SDK. Made in a thread: loading the CA store takes ~20 ms."""

    def __init__(self, max_connections: int, max_bytes: int = MAX_ANSWER_BYTES) -> None:
        self.max_connections = max_connections
        self.max_bytes = max_bytes
        tls = httpx.create_ssl_context()  # the trust store httpx (and the SDKs) use
        self._http1 = Http1Client(tls, max_connections, max_bytes)
        self._httpx: httpx.AsyncClient | None = None

    @property
    def is_closed(self) -> bool:
        return self._http1.is_closed

    async def post(self, url: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """POST ``body`` and read the whole answer (no timeout of its own: the caller bounds
        it). Raises :class:`TooLarge` over the size cap, :class:`ExchangeFailed` when the
        exchange fails, ``ValueError`` for a URL or header that cannot be sent."""
        return await self._http1.post(url, headers, body)

    def httpx_client(self) -> httpx.AsyncClient:
        """A pooled, size-capped httpx client for an SDK, made on first use."""
        if self._httpx is None:
            self._httpx = pooled_client(self.max_connections, self.max_bytes)
        return self._httpx

    async def aclose(self) -> None:
        """Close every connection (again: a no-op)."""
        await self._http1.aclose()
        client, self._httpx = self._httpx, None
        if client is not None:
            await client.aclose()


def connection_failed(exc: BaseException, url: object = None) -> str:
    """``connection to https://host/v1/chat/completions failed: ConnectError (All connection
    attempts failed)`` for a transport error: which endpoint, and why. The URL is shown without
    user info or query (where keys may be) and the reason without any URL credentials."""
    if url is None:
        try:
            request = getattr(exc, "request", None)
        except RuntimeError:  # httpx raises it for an error made without a request
            request = None
        url = getattr(request, "url", None)
    cause = exc.__cause__ if isinstance(exc.__cause__, httpx.TransportError) else exc
    reason = " ".join(str(cause).split())
    kind = type(cause).__name__
    if isinstance(cause, ExchangeFailed):
        kind, reason = cause.kind, " ".join(cause.reason.split())
    reason = re.sub(r"//[^/@\s]*@", "//", reason)
    why = f"{kind} ({reason})" if reason else kind
    return f"connection to {shown_url(url)} failed: {why}" if url else f"connection failed: {why}"


def shown_url(url: object) -> str:
    """``scheme://host:port/path`` of ``url``: no user info, query or fragment."""
    try:
        parsed = httpx.URL(str(url))
    except (TypeError, ValueError, httpx.InvalidURL):
        return "(an invalid URL)"
    if not parsed.scheme or not parsed.host:
        return "(an invalid URL)"
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{parsed.host}{port}{parsed.path}"
