"""``evald gateway --native-upstream URL``: the forwarding gateway's native JSON APIs (NeMo
Evaluator's, the runs API) come from the HTTP gateway of the server at URL.

The forwarding gateway speaks gRPC to its server, but the native APIs exist only over HTTP, in
the server's own process: without an upstream the UI's pages load but their data calls answer
404. Requests under each native prefix are passed on as they are (method, path, query, body and
the headers that matter: the key, the content type, the UI's header); the upstream checks the
key.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import web

NATIVE_PREFIXES = ("/v1/evaluation/", "/v1/evald/")
PASSED_HEADERS = (
    "authorization",
    "x-goog-api-key",
    "content-type",
    "accept",
    "x-evald-ui",
    "x-request-id",
    "x-server-timeout",
)
ANSWER_HEADERS = ("content-type", "content-disposition", "allow", "location")
TIMEOUT_SECONDS = 300.0


class NativeUpstream:
    """Forwards every request under ``prefix`` to ``base`` (``http(s)://host:port``)."""

    def __init__(self, prefix: str, base: str) -> None:
        self.prefix = prefix
        self.base = base.rstrip("/")
        self._session: aiohttp.ClientSession | None = None

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Callable[[str, list[tuple[str, str]]], object] | None,
        metadata: list[tuple[str, str]],
        read_body: Callable[[web.BaseRequest], Awaitable[bytes]],
        max_json_values: int,
    ) -> web.StreamResponse:
        """Pass the request on; 502 when the upstream cannot be reached."""
        if self._session is None:
            timeout = aiohttp.ClientTimeout(total=TIMEOUT_SECONDS)
            self._session = aiohttp.ClientSession(timeout=timeout, auto_decompress=False)
        body = await read_body(request)
        headers = {k: request.headers[k] for k in PASSED_HEADERS if k in request.headers}
        url = self.base + request.rel_url.raw_path_qs
        try:
            async with self._session.request(
                request.method, url, data=body or None, headers=headers, allow_redirects=False
            ) as answer:
                payload = await answer.read()
                passed = {k: answer.headers[k] for k in ANSWER_HEADERS if k in answer.headers}
                if "content-encoding" in answer.headers:
                    passed["content-encoding"] = answer.headers["content-encoding"]
                return web.Response(status=answer.status, body=payload, headers=passed)
        except (aiohttp.ClientError, TimeoutError) as exc:
            message = f"the upstream server {self.base} cannot be reached ({type(exc).__name__})"
            return web.json_response({"error": {"code": 502, "message": message}}, status=502)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def upstreams(base: str | None) -> list[NativeUpstream]:
    """The native APIs of a forwarding gateway: each native prefix from ``base`` (none
    without one)."""
    if not base:
        return []
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"--native-upstream {base}: give http://HOST:PORT or https://HOST:PORT")
    return [NativeUpstream(prefix, base) for prefix in NATIVE_PREFIXES]
