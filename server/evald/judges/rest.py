"""One JSON POST to a judge endpoint, for the backends that speak its REST protocol directly.

The SDKs' request and response models (pydantic validation and copies, retry wrappers) cost
more CPU per call than the whole rest of a judge call; the wire format of a judge call is small
and documented, so the backends build and read it as plain dicts. Failures map to the errors of
:mod:`evald.judges.base` as the SDK paths mapped them.
"""

from __future__ import annotations

import asyncio
import json
import platform
from collections.abc import Mapping
from typing import Any

from evald import __version__
from evald.judges.base import JudgeTimeout, TransientError
from evald.judges.http import Answer, ExchangeFailed, JudgeHttp, TooLarge, connection_failed

USER_AGENT = f"evald/{__version__} gl-python/{platform.python_version()}"
"""Sent as ``User-Agent`` (and Google's ``x-goog-api-client``)."""


def encode(payload: Mapping[str, Any]) -> bytes:
    """A request body: compact JSON, UTF-8."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


async def post(
    http: JudgeHttp, url: str, headers: Mapping[str, str], body: bytes, timeout: float
) -> Answer:
    """POST ``body`` to ``url``, the whole response read within ``timeout`` seconds.

    Raises :class:`JudgeTimeout` when the time runs out and :class:`TransientError` for a
    connection failure or an answer over the size cap; any HTTP status is returned.
    """
    try:
        async with asyncio.timeout(timeout):  # no task per call, unlike asyncio.wait_for
            return await http.post(url, headers, body)
    except TimeoutError:
        raise JudgeTimeout(f"no answer within {timeout:.3g}s") from None
    except TooLarge as exc:
        raise TransientError(str(exc)) from None
    except (ExchangeFailed, ValueError) as exc:  # ValueError: a URL or header that cannot be sent
        raise TransientError(connection_failed(exc, url)) from None


def decoded(response: Answer) -> Any:
    """The JSON document of a response body, or None when it is not JSON."""
    try:
        return json.loads(response.content)
    except (ValueError, RecursionError):
        return None


def error_message(document: Any, response: Answer) -> str:
    """What an error response says: ``error.message`` (or ``error.status``) of a JSON error
    body, else the start of the body itself."""
    if isinstance(document, dict):
        error = document.get("error", document)
        if isinstance(error, dict):
            for key in ("message", "status"):
                if error.get(key):
                    return str(error[key])
    text = " ".join(response.content[:300].decode("utf-8", "replace").split())
    return text or response.reason
