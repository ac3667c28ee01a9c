"""Serves the UI's files under ``/ui/`` (a single-page app: every path that is not an asset
answers ``index.html``) with a strict Content-Security-Policy, and redirects ``/`` there.

The files are package data (``evald/ui/assets``), read once off the event loop and kept in
memory (tens of kilobytes). They hold no data, so no key is needed to fetch them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

PREFIX = "/ui"
HOME = "/ui/"
ASSETS = Path(__file__).parent / "assets"
ASSET_PREFIX = "/ui/assets/"
INDEX = "index.html"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
"""Scripts, styles, images and API calls from this origin only; no inline script, no plugin,
no framing (clickjacking)."""
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
CACHE_CONTROL = "no-cache"
"""Browsers keep the files but ask again each time (answered 304 by ETag): file names carry no
content hash, so a new version must show at once after an upgrade."""


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str
    etag: str


def load(root: Path = ASSETS) -> dict[str, Asset]:
    """Every file under ``root`` by its path relative to it (``js/app.js``)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in CONTENT_TYPES:
            continue
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:32]
        name = path.relative_to(root).as_posix()
        found[name] = Asset(body, CONTENT_TYPES[path.suffix], f'"{digest}"')
    return found


class UiAssets:
    """The gateway's native API for ``/ui``: static files, no key needed."""

    prefix = PREFIX

    def __init__(self, root: Path = ASSETS) -> None:
        self.root = root
        self._assets: dict[str, Asset] | None = None

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Callable[[str, list[tuple[str, str]]], object] | None,
        metadata: list[tuple[str, str]],
        read_body: Callable[[web.BaseRequest], Awaitable[bytes]],
        max_json_values: int,
    ) -> web.StreamResponse:
        """Answer one request under ``/ui``; never raises."""
        path = request.rel_url.raw_path
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            return _not_found(path)  # e.g. /uix: not the UI's
        if request.method not in ("GET", "HEAD"):
            response = _plain(405, "the UI's pages answer GET and HEAD only")
            response.headers["Allow"] = "GET, HEAD"
            return response
        if self._assets is None:
            self._assets = await asyncio.to_thread(load, self.root)
        if path.startswith(ASSET_PREFIX):
            asset = self._assets.get(path.removeprefix(ASSET_PREFIX))
            if asset is None:
                return _not_found(path)
        else:  # a page of the app (/ui/runs/abc): the app's router draws it
            asset = self._assets[INDEX]
        return _serve(request, asset)


def redirect_home() -> web.Response:
    """``GET /``'s answer: the UI."""
    return web.Response(status=302, headers={"Location": HOME, "Cache-Control": "no-cache"})


def _serve(request: web.BaseRequest, asset: Asset) -> web.Response:
    headers = {**SECURITY_HEADERS, "ETag": asset.etag, "Cache-Control": CACHE_CONTROL}
    if asset.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    headers["Content-Type"] = asset.content_type
    return web.Response(body=asset.body, headers=headers)


def _plain(status: int, message: str) -> web.Response:
    body = json.dumps({"error": {"code": status, "message": message}}).encode()
    return web.Response(
        status=status, body=body, content_type="application/json", headers=SECURITY_HEADERS
    )


def _not_found(path: str) -> web.Response:
    return _plain(404, f"no UI file at {path}")
