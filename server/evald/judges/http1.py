"""HTTP/1.1 POSTs over pooled keep-alive connections, on asyncio's own transports.

A judge call is one small JSON exchange: one request written whole, one answer read whole.
aiohttp's client spends about 0.35 ms of CPU on such an exchange on loopback (a task, timers,
header multidicts and URL objects per call), more than gRPC spends receiving and answering the
evaluation call around it. Here a request is one buffer written in one system call and the
answer is parsed in place as it arrives: about a tenth of that.

What is read: a status line and headers (at most :data:`MAX_HEAD_BYTES`), interim 1xx answers
skipped, then a body delimited by ``Content-Length``, by chunked transfer coding, or by the
connection's end, decoded from gzip or deflate, and capped at ``max_bytes`` after decoding. A
connection is reused when both sides keep it alive; one that the server closed while it sat idle
is noticed before it is used, and a request that finds it closed before any byte of an answer
arrived is sent once more on a new connection (the server never saw it). Redirects are answers
like any other; there are no proxies.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import re
import ssl
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote, urlsplit

MAX_HEAD_BYTES = 64 * 1024
"""Largest status line plus headers read from an answer."""

KEEPALIVE_SECONDS = 30.0
"""How long an idle connection is kept for the next request."""

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(r"[\r\n\0]")
_STATUS = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: ([^\r\n]*))?")
_DIGITS = re.compile(r"[0-9]{1,18}")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?")


@dataclass(frozen=True)
class Answer:
    """An HTTP response, read whole."""

    status: int
    reason: str
    content: bytes


class TooLarge(Exception):
    """A response over the size cap (the message says so)."""


class ExchangeFailed(Exception):
    """The request could not be sent or its answer not read: ``kind`` names the failure
    (``ConnectError``, ``ServerDisconnected``, ``ProtocolError``), ``reason`` says why."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


class _Stale(Exception):
    """A reused connection ended before any byte of the answer: the request is sent again."""


@dataclass(frozen=True)
class Endpoint:
    """Where a URL's requests go, and the start of each request to it."""

    scheme: str
    host: str
    port: int
    head: bytes
    """``POST <target> HTTP/1.1`` and the ``Host`` (and userinfo ``Authorization``) lines."""
    authorized: bool

    @property
    def key(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port

    def request(self, headers: Mapping[str, str], body: bytes) -> bytes:
        """The whole request: ``headers`` checked (no line breaks can smuggle a header in)."""
        lines = [self.head]
        seen = set()
        for name, value in headers.items():
            lowered = name.lower()
            if lowered in ("host", "content-length", "transfer-encoding", "connection"):
                continue  # this client's own
            if lowered == "authorization" and self.authorized:
                continue  # the URL's credentials were asked for
            encoded = name.encode("latin-1")
            if not _TOKEN.fullmatch(encoded):
                raise ValueError(f"invalid HTTP header name {name!r}")
            if _BAD_VALUE.search(value):
                raise ValueError(f"the value of HTTP header {name!r} has a line break or NUL")
            lines.append(b"%s: %s\r\n" % (encoded, value.encode("latin-1")))
            seen.add(lowered)
        if "accept-encoding" not in seen:
            lines.append(b"Accept-Encoding: gzip, deflate\r\n")
        lines.append(b"Content-Length: %d\r\n\r\n" % len(body))
        lines.append(body)
        return b"".join(lines)


def endpoint(url: str) -> Endpoint:
    """The :class:`Endpoint` of an ``http`` or ``https`` URL; ``ValueError`` for any other."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError(f"not an http or https URL: scheme {parts.scheme!r}")
    host = parts.hostname
    if not host:
        raise ValueError("the URL has no host")
    port = parts.port or (443 if scheme == "https" else 80)  # ValueError for a bad port
    if ":" in host:
        shown = f"[{host}]"
    else:
        host = host.encode("idna").decode("ascii")
        shown = host
    if parts.port is not None and parts.port != (443 if scheme == "https" else 80):
        shown = f"{shown}:{port}"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if _BAD_VALUE.search(target) or " " in target:
        raise ValueError("the URL's path has a space, line break or NUL")
    head = b"POST %s HTTP/1.1\r\nHost: %s\r\n" % (target.encode("ascii"), shown.encode("ascii"))
    authorized = parts.username is not None
    if authorized:
        user = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        head += b"Authorization: Basic %s\r\n" % base64.b64encode(user.encode())
    return Endpoint(scheme, host, port, head, authorized)


# Reading an answer ---------------------------------------------------------------------------


class ProtocolError(ExchangeFailed):
    """An answer that is not HTTP/1.1."""

    def __init__(self, reason: str) -> None:
        super().__init__("ProtocolError", reason)


class _Reader:
    """Parses one answer from the bytes fed to it, in any split."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.buffer = bytearray()
        self.state = "head"
        self.remaining = 0  # of the current body or chunk
        self.status = 0
        self.reason = ""
        self.keep_alive = True
        self.parts: list[bytes] = []
        self.size = 0
        self.decoder: zlib._Decompress | None = None
        self.started = False
        """Some byte of the answer has arrived."""

    @property
    def done(self) -> bool:
        return self.state == "done"

    def answer(self) -> Answer:
        return Answer(self.status, self.reason, b"".join(self.parts))

    def feed(self, data: bytes) -> None:
        """Take the next bytes; raises :class:`ProtocolError` or :class:`TooLarge`."""
        self.started = True
        if self.state == "done":
            raise ProtocolError("bytes after the end of the answer")
        if self.state == "eof-body":
            self._body(data)
            return
        self.buffer += data
        while self.state != "done" and self._step():
            pass
        if self.state == "done" and self.buffer:
            self.keep_alive = False  # bytes beyond the answer: the connection is out of step

    def feed_eof(self) -> bool:
        """The connection ended: whether that ends the answer (a body read to the end)."""
        if self.state == "eof-body":
            self._finish_decoding()
            self.state = "done"
            return True
        return self.state == "done"

    def _step(self) -> bool:
        buffer = self.buffer
        if self.state == "eof-body":
            if buffer:
                self._body(bytes(buffer))
                buffer.clear()
            return False
        if self.state == "head":
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD_BYTES:
                    raise ProtocolError(f"the answer's headers exceed {MAX_HEAD_BYTES} bytes")
                return False
            if end > MAX_HEAD_BYTES:
                raise ProtocolError(f"the answer's headers exceed {MAX_HEAD_BYTES} bytes")
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            self._head(head)
            return True
        if self.state in ("length", "chunk"):
            if not buffer:
                return False
            take = bytes(buffer[: self.remaining])
            del buffer[: len(take)]
            self.remaining -= len(take)
            self._body(take)
            if self.remaining == 0:
                if self.state == "length":
                    self._end()
                else:
                    self.state = "chunk-end"
            return True
        if self.state == "chunk-size":
            end = buffer.find(b"\r\n")
            if end < 0:
                if len(buffer) > 1024:
                    raise ProtocolError("a chunk size line is too long")
                return False
            match = _CHUNK_SIZE.fullmatch(bytes(buffer[:end]))
            if match is None:
                raise ProtocolError("a chunk size is not hexadecimal")
            del buffer[: end + 2]
            self.remaining = int(match.group(1), 16)
            self.state = "chunk" if self.remaining else "trailers"
            return True
        if self.state == "chunk-end":
            if len(buffer) < 2:
                return False
            if buffer[:2] != b"\r\n":
                raise ProtocolError("a chunk does not end with CRLF")
            del buffer[:2]
            self.state = "chunk-size"
            return True
        if self.state == "trailers":
            if buffer[:2] == b"\r\n":
                del buffer[:2]
                self._end()
                return True
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD_BYTES:
                    raise ProtocolError(f"the answer's trailers exceed {MAX_HEAD_BYTES} bytes")
                return False
            del buffer[: end + 4]
            self._end()
            return True
        return False

    def _head(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        match = _STATUS.fullmatch(lines[0])
        if match is None:
            raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        minor, status = match.group(1), int(match.group(2))
        if 100 <= status < 200:
            if status == 101:
                raise ProtocolError("the server switched protocols")
            return  # an interim answer (100 Continue, 103 Early Hints): the real one follows
        self.status = status
        self.reason = (match.group(3) or b"").decode("latin-1")
        fields: dict[str, list[str]] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon or not _TOKEN.fullmatch(name):
                raise ProtocolError(f"not a header line: {line[:80]!r}")
            fields.setdefault(name.decode("ascii").lower(), []).append(
                value.strip(b" \t").decode("latin-1")
            )
        connection = _tokens(fields.get("connection", ()))
        self.keep_alive = "close" not in connection and (
            minor == b"1" or "keep-alive" in connection
        )
        encoding = ",".join(fields.get("content-encoding", ())).strip().lower()
        if encoding in ("gzip", "x-gzip"):
            self.decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self.decoder = zlib.decompressobj()
        elif encoding not in ("", "identity"):
            raise ProtocolError(f"unsupported content encoding {encoding!r}")
        coding = _tokens(fields.get("transfer-encoding", ()))
        lengths = {v.strip() for v in fields.get("content-length", ())}
        if coding and lengths:
            self.keep_alive = False  # both framings: never trust what follows on this connection
        if status in (204, 304):
            self._end()
        elif coding:
            if coding[-1] == "chunked":
                self.state = "chunk-size"
            else:
                self.keep_alive = False
                self.state = "eof-body"
        elif lengths:
            if len(lengths) > 1 or not all(_DIGITS.fullmatch(v) for v in lengths):
                raise ProtocolError(f"an invalid Content-Length: {sorted(lengths)}")
            self.remaining = int(lengths.pop())
            if self.decoder is None and self.remaining > self.max_bytes:
                raise TooLarge(too_large(self.max_bytes))
            self.state = "length" if self.remaining else "done"
            if self.state == "done":
                self._end()
        else:
            self.keep_alive = False
            self.state = "eof-body"

    def _body(self, data: bytes) -> None:
        if self.decoder is not None:
            room = self.max_bytes - self.size
            try:
                data = self.decoder.decompress(data, room + 1)
            except zlib.error as exc:
                raise ProtocolError(f"the answer does not decompress: {exc}") from None
        self.size += len(data)
        if self.size > self.max_bytes:  # counted after decompression: no zip bombs
            raise TooLarge(too_large(self.max_bytes))
        if data:
            self.parts.append(data)

    def _finish_decoding(self) -> None:
        decoder = self.decoder
        if decoder is not None:
            rest = decoder.flush()
            self.size += len(rest)
            if self.size > self.max_bytes:
                raise TooLarge(too_large(self.max_bytes))
            if rest:
                self.parts.append(rest)
            if not decoder.eof and self.size:
                raise ProtocolError("the compressed answer is cut short")

    def _end(self) -> None:
        self._finish_decoding()
        self.state = "done"


def _tokens(values: list[str] | tuple[()]) -> list[str]:
    """The comma-separated tokens of a header's values, lower-cased, in order."""
    return [token.strip().lower() for value in values for token in value.split(",")]


def too_large(max_bytes: int) -> str:
    """What a :class:`TooLarge` says."""
    return f"the answer is larger than {max_bytes // 1024} KiB"


# Connections ----------------------------------------------------------------------------------


class _Connection(asyncio.Protocol):
    """One keep-alive connection: at most one exchange at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_bytes: int) -> None:
        self.loop = loop
        self.max_bytes = max_bytes
        self.transport: asyncio.Transport | None = None
        self.reader: _Reader | None = None
        self.waiter: asyncio.Future[Answer] | None = None
        self.closed = False
        self.uses = 0
        self.idle_since = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, whatever its class: uvloop's do not derive from asyncio's.
        self.transport = cast(asyncio.Transport, transport)

    @property
    def usable(self) -> bool:
        return not self.closed and self.transport is not None and not self.transport.is_closing()

    def exchange(self, request: bytes) -> asyncio.Future[Answer]:
        """Send ``request``; the future holds the answer (or the failure)."""
        assert self.transport is not None
        assert self.waiter is None
        self.reader = _Reader(self.max_bytes)
        waiter = self.waiter = self.loop.create_future()
        self.uses += 1
        self.transport.write(request)
        return waiter

    @property
    def keep(self) -> bool:
        """Whether the last answer leaves the connection open for another request."""
        return self.usable and self.reader is not None and self.reader.keep_alive

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        if reader is None or self.waiter is None:
            self.close()  # bytes nobody asked for: the connection is out of step
            return
        try:
            reader.feed(data)
        except (ProtocolError, TooLarge) as exc:
            self._fail(exc)
            self.close()
            return
        if reader.done:
            waiter, self.waiter = self.waiter, None
            if not waiter.done():
                waiter.set_result(reader.answer())

    def eof_received(self) -> bool:
        reader, waiter = self.reader, self.waiter
        if reader is not None and waiter is not None:
            try:
                ended = reader.feed_eof()
            except (ProtocolError, TooLarge) as exc:
                ended = False
                self._fail(exc)
            if ended:
                self.waiter = None
                if not waiter.done():
                    waiter.set_result(reader.answer())
        self.closed = True
        return False  # the transport closes itself; connection_lost fails a pending exchange

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        reader = self.reader
        if reader is not None and not reader.started and self.uses > 1:
            self._fail(_Stale())
        else:
            why = " ".join(str(exc).split()) if exc else "the server closed the connection"
            self._fail(ExchangeFailed("ServerDisconnected", f"{why} before the answer ended"))

    def _fail(self, exc: BaseException) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Http1Client:
    """POSTs over pooled connections, kept alive per host up to ``max_idle`` each.

    Bound to the event loop of its first call. Callers bound their calls in flight themselves
    (a judge's ``max_concurrency``): a call never waits for a connection, it opens one.
    """

    def __init__(
        self,
        tls: ssl.SSLContext,
        max_idle: int,
        max_bytes: int,
        keepalive: float = KEEPALIVE_SECONDS,
    ) -> None:
        self._tls = tls
        self.max_idle = max_idle
        self.max_bytes = max_bytes
        self.keepalive = keepalive
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._open: set[_Connection] = set()
        self._endpoints: dict[str, Endpoint] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next_sweep = 0.0
        self.connections_made = 0
        self.is_closed = False

    async def post(self, url: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """POST ``body`` to ``url`` and read the whole answer (no timeout of its own: the
        caller bounds it). Raises :class:`TooLarge`, :class:`ExchangeFailed`, or
        ``ValueError`` for a URL or header that cannot be sent."""
        if self.is_closed:
            raise RuntimeError("the connections are closed")
        where = self._endpoints.get(url)
        if where is None:
            where = endpoint(url)
            if len(self._endpoints) >= 256:
                self._endpoints.clear()
            self._endpoints[url] = where
        request = where.request(headers, body)
        while True:
            connection = self._idle_connection(where.key)
            if connection is None:
                connection = await self._connect(where)
            try:
                answer = await connection.exchange(request)
            except _Stale:
                self._open.discard(connection)
                continue  # sent on a connection the server had closed: it never saw it
            except BaseException:  # cancelled, or failed: what is on the wire is unknown
                self._discard(connection)
                raise
            if connection.keep and not self.is_closed:
                self._release(where.key, connection)
            else:
                self._discard(connection)
            return answer

    def _idle_connection(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        if not idle:
            return None
        assert self._loop is not None  # set by the connect that made the idle connections
        oldest = self._loop.time() - self.keepalive
        while idle:
            connection = idle.pop()  # the most recently used: the least likely to be closed
            if connection.usable and connection.idle_since > oldest:
                return connection
            self._discard(connection)
        return None

    async def _connect(self, where: Endpoint) -> _Connection:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        tls = self._tls if where.scheme == "https" else None
        max_bytes = self.max_bytes
        connect = functools.partial(
            loop.create_connection,
            lambda: _Connection(loop, max_bytes),
            where.host,
            where.port,
            ssl=tls,
            server_hostname=where.host if tls is not None else None,
        )
        connection: _Connection
        try:
            # Happy Eyeballs (RFC 8305): an address that does not answer within 250 ms races the
            # next one. Only asyncio's own loops take the argument: uvloop's, which Ray's
            # workers run where it is installed, refuses it.
            if isinstance(loop, asyncio.BaseEventLoop):
                _, connection = await connect(happy_eyeballs_delay=0.25)
            else:
                _, connection = await connect()
        except (OSError, ssl.SSLError) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise ExchangeFailed("ConnectError", reason) from None
        self.connections_made += 1
        self._open.add(connection)
        if self.is_closed:
            self._discard(connection)
            raise RuntimeError("the connections are closed")
        return connection

    def _release(self, key: tuple[str, str, int], connection: _Connection) -> None:
        assert self._loop is not None
        now = self._loop.time()
        connection.reader = None
        connection.idle_since = now
        idle = self._idle.setdefault(key, [])
        if len(idle) >= self.max_idle:
            self._discard(connection)
        else:
            idle.append(connection)
        if now >= self._next_sweep:
            self._next_sweep = now + min(5.0, self.keepalive)
            self._sweep(now)

    def _sweep(self, now: float) -> None:
        """Close connections idle longer than the keep-alive time."""
        for key, idle in list(self._idle.items()):
            kept: list[_Connection] = []
            for connection in idle:
                if connection.usable and now - connection.idle_since < self.keepalive:
                    kept.append(connection)
                else:
                    self._discard(connection)
            if kept:
                self._idle[key] = kept
            else:
                del self._idle[key]

    def _discard(self, connection: _Connection) -> None:
        self._open.discard(connection)
        connection.close()

    @property
    def idle(self) -> int:
        """Connections waiting for a request."""
        return sum(len(idle) for idle in self._idle.values())

    async def aclose(self) -> None:
        """Close every connection (again: a no-op)."""
        self.is_closed = True
        self._idle.clear()
        for connection in list(self._open):
            self._discard(connection)
        await asyncio.sleep(0)  # lets the transports finish closing
