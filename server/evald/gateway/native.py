"""What the JSON-only APIs served beside the transcoded routes (NeMo Evaluator's, human
evaluation's, the web UI's runs) share: how a request's JSON body and query are read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from evald.errors import InvalidArgument

INLINE_JSON_BYTES = 256 * 1024
"""Larger bodies are parsed in a thread, so a big one does not hold the event loop."""

ReadBody = Callable[[web.BaseRequest], Awaitable[bytes]]
"""The gateway's body reader: size-capped, and bounded in time between chunks."""
Authenticate = Callable[[str, list[tuple[str, str]]], object]
"""``(method, metadata) -> principal``, raising on bad credentials."""


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
