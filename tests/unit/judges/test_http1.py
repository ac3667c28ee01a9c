"""The judges' HTTP/1.1 client: answers read in any split, connections kept, reused and dropped.

The reader's cases are byte streams fed whole, in every two-piece split and byte by byte; the
client's run against real servers on loopback (aiohttp's, and raw asyncio ones that misbehave
on purpose).
"""

from __future__ import annotations

import asyncio
import gzip
import itertools
import ssl
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import uvloop
from aiohttp import web
from evald.judges.http1 import (
    Answer,
    ExchangeFailed,
    Http1Client,
    ProtocolError,
    TooLarge,
    _Reader,
    endpoint,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tls import self_signed

CAP = 1000

OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}'

# name, bytes of the stream, (status, reason, content, keep-alive)
READS: list[tuple[str, bytes, tuple[int, str, bytes, bool]]] = [
    ("content-length", OK, (200, "OK", b'{"a":1}', True)),
    ("no reason", b"HTTP/1.1 404\r\nContent-Length: 2\r\n\r\nno", (404, "", b"no", True)),
    (
        "connection close",
        b"HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
        (500, "Oops", b"x", False),
    ),
    ("HTTP/1.0", b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", (200, "OK", b"x", False)),
    (
        "HTTP/1.0 keep-alive",
        b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx",
        (200, "OK", b"x", True),
    ),
    (
        "chunked, extension and trailer",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n",
        (200, "OK", b"abc0123456789", True),
    ),
    (
        "chunked, empty",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        (200, "OK", b"", True),
    ),
    (
        "interim answers first",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK,
        (200, "OK", b'{"a":1}', True),
    ),
    ("no content", b"HTTP/1.1 204 No Content\r\n\r\n", (204, "No Content", b"", True)),
    ("empty body", b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", (200, "OK", b"", True)),
    (
        "gzip",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s"
        % (len(gzip.compress(b"hello" * 50)), gzip.compress(b"hello" * 50)),
        (200, "OK", b"hello" * 50, True),
    ),
    (
        "deflate, chunked",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(zlib.compress(b"ab" * 40)), zlib.compress(b"ab" * 40)),
        (200, "OK", b"ab" * 40, True),
    ),
    (
        "both framings: chunked wins, the connection is not kept",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"1\r\nz\r\n0\r\n\r\n",
        (200, "OK", b"z", False),
    ),
    ("bytes beyond the answer", OK + b"junk", (200, "OK", b'{"a":1}', False)),
]

# name, bytes, what the error says
BROKEN: list[tuple[str, bytes, type[Exception], str]] = [
    ("not HTTP", b"SSH-2.0-OpenSSH\r\n\r\n", ProtocolError, "not an HTTP/1.x status line"),
    ("HTTP/2 preface", b"HTTP/2 200\r\n\r\n", ProtocolError, "not an HTTP/1.x status line"),
    (
        "a folded header",
        b"HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n",
        ProtocolError,
        "not a header line",
    ),
    (
        "two lengths",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx",
        ProtocolError,
        "invalid Content-Length",
    ),
    (
        "a signed length",
        b"HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx",
        ProtocolError,
        "invalid Content-Length",
    ),
    (
        "a bad chunk size",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ProtocolError,
        "not hexadecimal",
    ),
    (
        "a chunk without its CRLF",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc",
        ProtocolError,
        "does not end with CRLF",
    ),
    (
        "an unknown coding",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx",
        ProtocolError,
        "unsupported content encoding 'br'",
    ),
    (
        "not gzip",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello",
        ProtocolError,
        "does not decompress",
    ),
    ("switching protocols", b"HTTP/1.1 101 Switching\r\n\r\n", ProtocolError, "switched"),
    (
        "endless headers",
        b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 20_000,
        ProtocolError,
        "headers exceed",
    ),
    (
        "a declared size over the cap",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n",
        TooLarge,
        "larger than 0 KiB",
    ),
    (
        "chunks over the cap",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"100\r\n%s\r\n" % (b"x" * 256) * 5,
        TooLarge,
        "larger than",
    ),
    (
        "a zip bomb",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s"
        % (len(gzip.compress(b"\0" * 100_000)), gzip.compress(b"\0" * 100_000)),
        TooLarge,
        "larger than",
    ),
]


def splits(data: bytes) -> list[list[bytes]]:
    """``data`` whole, in every two-piece split, and byte by byte."""
    ways = [[data], [data[i : i + 1] for i in range(len(data))]]
    ways += [[data[:i], data[i:]] for i in range(1, len(data))]
    return ways


def read(pieces: list[bytes], eof: bool = False) -> _Reader:
    reader = _Reader(CAP)
    for piece in pieces:
        if reader.done:
            break
        reader.feed(piece)
    if eof:
        reader.feed_eof()
    return reader


@pytest.mark.parametrize(("name", "data", "expected"), READS, ids=[r[0] for r in READS])
def test_an_answer_reads_the_same_in_any_split(
    name: str, data: bytes, expected: tuple[int, str, bytes, bool]
) -> None:
    for pieces in splits(data):
        reader = read(pieces)
        if name == "bytes beyond the answer" and len(pieces) > 1 and pieces[0] != data:
            continue  # fed after the end: the connection is dropped, the answer still stands
        assert reader.done, pieces
        answer = reader.answer()
        assert (answer.status, answer.reason, answer.content, reader.keep_alive) == expected


@pytest.mark.parametrize(("name", "data", "error", "says"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_answer_is_refused(
    name: str, data: bytes, error: type[Exception], says: str
) -> None:
    for pieces in [[data], [data[:7], data[7:]]]:
        with pytest.raises(error, match=says):
            read(pieces)


def test_an_answer_without_length_ends_with_the_connection() -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"
    for pieces in splits(data):
        reader = read(pieces)
        assert not reader.done
        assert reader.feed_eof()
        assert reader.answer() == Answer(200, "OK", b"until the end")
        assert not reader.keep_alive


@pytest.mark.parametrize(
    "data",
    [
        OK[:-1],
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        b"HTTP/1.1 200 OK\r\nContent-Length: 3",
    ],
)
def test_an_answer_cut_short_is_not_an_answer(data: bytes) -> None:
    reader = read([data])
    assert not reader.feed_eof()
    assert not reader.done


@settings(max_examples=150, deadline=None)
@given(
    body=st.binary(max_size=CAP),
    sizes=st.lists(st.integers(1, 64), max_size=40),
    cuts=st.lists(st.integers(0, 4000), max_size=6),
    compressed=st.booleans(),
)
def test_chunked_answers_read_back_in_any_split(
    body: bytes, sizes: list[int], cuts: list[int], compressed: bool
) -> None:
    wire = gzip.compress(body) if compressed else body
    chunks, at = [], 0
    for size in [*sizes, len(wire)]:
        if at < len(wire):
            chunks.append(wire[at : at + size])
            at += size
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
    head += b"Content-Encoding: gzip\r\n" if compressed else b""
    data = head + b"\r\n" + b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    reader = read([data[a:b] for a, b in itertools.pairwise(points)])
    assert reader.done
    assert reader.answer().content == body


# Requests ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "head"),
    [
        ("http://127.0.0.1:8080/v1/x?k=1", b"POST /v1/x?k=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"),
        ("https://judge.example/v1", b"POST /v1 HTTP/1.1\r\nHost: judge.example\r\n"),
        ("http://judge.example:80", b"POST / HTTP/1.1\r\nHost: judge.example\r\n"),
        ("http://[::1]:9/a", b"POST /a HTTP/1.1\r\nHost: [::1]:9\r\n"),
        ("http://bücher.example/", b"POST / HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n"),
        (
            "http://u:p%40ss@h.example/",
            b"POST / HTTP/1.1\r\nHost: h.example\r\nAuthorization: Basic dTpwQHNz\r\n",
        ),
    ],
)
def test_a_request_starts_with_its_target_and_host(url: str, head: bytes) -> None:
    assert endpoint(url).head == head


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ftp://h/x", "not an http or https URL"),
        ("http:///x", "no host"),
        ("http://h:99999/", "Port out of range"),
        ("http://h/a b", "space, line break or NUL"),
    ],
)
def test_a_url_that_cannot_be_sent_is_refused(url: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        endpoint(url)


def test_headers_cannot_smuggle_lines_in() -> None:
    where = endpoint("http://h/")
    for headers in ({"x-key": "a\r\nX-Evil: 1"}, {"x key": "a"}, {"x-key": "a\nb"}):
        with pytest.raises(ValueError, match="header"):
            where.request(headers, b"")
    sent = where.request({"Content-Length": "5", "Host": "evil", "X-A": "b"}, b"{}")
    assert sent == (
        b"POST / HTTP/1.1\r\nHost: h\r\nX-A: b\r\nAccept-Encoding: gzip, deflate\r\n"
        b"Content-Length: 2\r\n\r\n{}"
    )


# Against servers -----------------------------------------------------------------------------


@asynccontextmanager
async def aiohttp_server(
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    tls: ssl.SSLContext | None = None,
) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_calls_reuse_one_connection_and_send_what_they_are_given() -> None:
    seen: list[tuple[str, str, bytes, object]] = []

    async def echo(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        peer = request.transport.get_extra_info("peername") if request.transport else None
        seen.append((request.method, request.path_qs, body, peer))
        if request.path == "/gzip":
            response = web.Response(body=body * 100)
            response.enable_compression(web.ContentCoding.gzip)
            return response
        if request.path == "/chunked":
            stream = web.StreamResponse()
            stream.enable_chunked_encoding()
            await stream.prepare(request)
            for piece in (body, b"-", body):
                await stream.write(piece)
            await stream.write_eof()
            return stream
        return web.Response(body=body, status=201, headers={"X-Header": request.headers["X-A"]})

    client = Http1Client(ssl.create_default_context(), 4, CAP)
    async with aiohttp_server(echo) as url:
        first = await client.post(f"{url}/v1/x?k=1", {"X-A": "b"}, b"hi")
        assert first == Answer(201, "Created", b"hi")
        assert await client.post(f"{url}/gzip", {}, b"ab") == Answer(200, "OK", b"ab" * 100)
        assert await client.post(f"{url}/chunked", {}, b"ab") == Answer(200, "OK", b"ab-ab")
        await client.aclose()
    assert [s[:3] for s in seen] == [
        ("POST", "/v1/x?k=1", b"hi"),
        ("POST", "/gzip", b"ab"),
        ("POST", "/chunked", b"ab"),
    ]
    assert len({s[3] for s in seen}) == 1
    assert client.connections_made == 1


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_the_client_runs_on_uvloop(tmp_path: Path, tls: bool) -> None:
    """Ray's workers run their event loop on uvloop when it is installed: its transports are
    not asyncio's classes, and its ``create_connection`` lacks some of asyncio's arguments."""
    serving, trust = None, ssl.create_default_context()
    if tls:
        cert, key = self_signed(tmp_path)
        serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        serving.load_cert_chain(cert, key)
        trust = ssl.create_default_context(cafile=str(cert))

    async def echo(request: web.Request) -> web.StreamResponse:
        return web.Response(body=await request.read())

    async def scenario() -> tuple[list[Answer], int]:
        client = Http1Client(trust, 4, CAP)
        async with aiohttp_server(echo, serving) as url:
            answers = [await client.post(f"{url}/x", {}, body) for body in (b"a", b"b")]
            await client.aclose()
        return answers, client.connections_made

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        answers, made = runner.run(scenario())
    assert answers == [Answer(200, "OK", b"a"), Answer(200, "OK", b"b")]
    assert made == 1


async def test_calls_in_flight_each_have_a_connection_and_the_pool_keeps_max_idle() -> None:
    release = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        await release.wait()
        return web.Response(body=await request.read())

    client = Http1Client(ssl.create_default_context(), 3, CAP)
    async with aiohttp_server(slow) as url:
        calls = [asyncio.ensure_future(client.post(url, {}, b"%d" % i)) for i in range(8)]
        await asyncio.sleep(0.2)
        release.set()
        answers = await asyncio.gather(*calls)
        assert [a.content for a in answers] == [b"%d" % i for i in range(8)]
        assert client.connections_made == 8
        assert client.idle == 3
        await client.aclose()
        assert client.idle == 0
    with pytest.raises(RuntimeError, match="closed"):
        await client.post(url, {}, b"")


@asynccontextmanager
async def raw_server(
    answer: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> AsyncIterator[tuple[str, list[int]]]:
    """A server that runs ``answer`` per connection; yields its URL and the list of its
    connections' numbers (one more per connection accepted)."""
    connections: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(len(connections))
        try:
            await answer(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/x", connections
    finally:
        server.close()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    return await reader.readexactly(length)


async def test_a_connection_the_server_closed_while_idle_is_not_sent_twice() -> None:
    async def one_answer_then_close(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        body = await read_request(r)
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        await w.drain()

    client = Http1Client(ssl.create_default_context(), 4, CAP)
    async with raw_server(one_answer_then_close) as (url, connections):
        for i in range(3):
            assert (await client.post(url, {}, b"%d" % i)).content == b"%d" % i
            await asyncio.sleep(0.05)  # the server's close arrives while the connection idles
        await client.aclose()
    assert client.connections_made == len(connections) == 3


async def test_a_request_on_a_connection_closed_under_it_is_sent_again_once() -> None:
    """The server closes each kept connection without reading the next request: the client
    learns it only after writing, and sends the request again on a new connection."""
    served = 0

    async def answer_then_hang_up(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        nonlocal served
        body = await read_request(r)
        served += 1
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        await w.drain()
        await r.readuntil(b"\r\n\r\n")  # the next request: hang up on it, unanswered

    client = Http1Client(ssl.create_default_context(), 4, CAP)
    async with raw_server(answer_then_hang_up) as (url, connections):
        for i in range(4):
            assert (await client.post(url, {}, b"%d" % i)).content == b"%d" % i
        await client.aclose()
    assert served == 4
    assert client.connections_made == len(connections) == 4


@pytest.mark.parametrize(
    ("script", "says"),
    [
        (b"", "ServerDisconnected"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "ServerDisconnected"),
        (b"hello\r\n\r\n", "ProtocolError"),
    ],
)
async def test_a_fresh_connection_that_fails_fails_the_call(script: bytes, says: str) -> None:
    async def misbehave(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await read_request(r)
        w.write(script)
        await w.drain()

    client = Http1Client(ssl.create_default_context(), 4, CAP)
    async with raw_server(misbehave) as (url, connections):
        with pytest.raises(ExchangeFailed, match=says):
            await client.post(url, {}, b"x")
        await client.aclose()
    assert len(connections) == 1  # one connection: a fresh one is never tried again


async def test_an_unreachable_endpoint_is_a_connect_error() -> None:
    client = Http1Client(ssl.create_default_context(), 4, CAP)
    with pytest.raises(ExchangeFailed) as raised:
        await client.post("http://127.0.0.1:1/x", {}, b"")
    assert raised.value.kind == "ConnectError"
    assert "Connect call failed" in raised.value.reason


async def test_a_cancelled_call_drops_its_connection() -> None:
    lost = asyncio.Event()

    async def never_answer(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await read_request(r)
        await r.read()  # until the client hangs up
        lost.set()

    client = Http1Client(ssl.create_default_context(), 4, CAP)
    async with raw_server(never_answer) as (url, connections):
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await client.post(url, {}, b"x")
        await asyncio.wait_for(lost.wait(), 5)
        assert client.idle == 0
        await client.aclose()
    assert len(connections) == 1


async def test_idle_connections_expire() -> None:
    async def echo(request: web.Request) -> web.Response:
        return web.Response(body=await request.read())

    client = Http1Client(ssl.create_default_context(), 4, CAP, keepalive=0.1)
    async with aiohttp_server(echo) as url:
        await client.post(url, {}, b"a")
        await client.post(url, {}, b"b")
        await asyncio.sleep(0.15)
        await client.post(url, {}, b"c")
        await client.aclose()
    assert client.connections_made == 2


async def test_tls_is_verified(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    serving.load_cert_chain(cert, key)

    async def echo(request: web.Request) -> web.Response:
        return web.Response(body=await request.read())

    async with aiohttp_server(echo, serving) as url:
        trusting = Http1Client(ssl.create_default_context(cafile=str(cert)), 4, CAP)
        assert await trusting.post(url, {}, b"secret") == Answer(200, "OK", b"secret")
        await trusting.aclose()
        stranger = Http1Client(ssl.create_default_context(), 4, CAP)
        with pytest.raises(ExchangeFailed, match="CERTIFICATE_VERIFY_FAILED"):
            await stranger.post(url, {}, b"secret")
        await stranger.aclose()
