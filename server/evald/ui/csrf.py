"""Cross-site request forgery guard for the native JSON APIs' state-changing requests.

Keys travel in a header (``x-goog-api-key``) that a page of another site can only send after a
CORS preflight, which only ``--cors-origin`` origins pass. That alone protects calls when keys
are required; this guard makes it hold when authentication is off too:

* a request a browser marks as coming from another site (``Sec-Fetch-Site: cross-site`` or
  ``same-site``, or an ``Origin`` that is neither this host nor an allowed CORS origin) is
  refused;
* a body must be JSON (``application/json``), or ``multipart/form-data`` with the custom header
  ``x-evald-ui: 1``: the content types an HTML form can send cross-site without a preflight
  (form-urlencoded, multipart, text/plain) are refused otherwise.

Non-browser clients (SDKs, curl) send neither header and a JSON body: unaffected.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

from aiohttp import web

UI_HEADER = "x-evald-ui"
"""Set to ``1`` by the UI on every call; required with a multipart body."""
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
JSON_TYPES = ("application/json",)


def refusal(request: web.BaseRequest, cors_origins: Collection[str]) -> str | None:
    """Why a state-changing request must be refused (a message for the caller), or None."""
    if request.method in SAFE_METHODS:
        return None
    origin = request.headers.get("Origin")
    allowed = origin is not None and origin.lower() in cors_origins
    if origin is not None and not allowed and not _same_host(origin, request):
        return f"requests from origin {origin[:100]!r} are not allowed (see --cors-origin)"
    site = request.headers.get("Sec-Fetch-Site", "").lower()
    if site in ("cross-site", "same-site") and not allowed:
        return "requests from another site are not allowed (see --cors-origin)"
    content_type = request.headers.get("Content-Type")
    if content_type is None:
        if _has_body(request):
            return "a request body needs content-type: application/json"
        return None
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime in JSON_TYPES or (mime.startswith("application/") and mime.endswith("+json")):
        return None
    if mime == "multipart/form-data" and request.headers.get(UI_HEADER) == "1":
        return None
    return (
        f"content-type {mime[:60]!r} is not accepted: send application/json (or multipart/"
        f"form-data with the header {UI_HEADER}: 1)"
    )


def _same_host(origin: str, request: web.BaseRequest) -> bool:
    """Whether ``origin`` names the host this request was sent to (the UI's own pages)."""
    if origin == "null":
        return False
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return bool(netloc) and netloc == (request.host or "").lower()


def _has_body(request: web.BaseRequest) -> bool:
    if request.headers.get("Transfer-Encoding", "").lower() == "chunked":
        return True
    return bool(request.content_length)
