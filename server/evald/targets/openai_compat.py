"""Generations from OpenAI-compatible endpoints (NIM, vLLM, OpenAI): one JSON POST with httpx.

The request body is the generation's parameters verbatim, then ``model`` and ``prompt`` (for a
completion) or ``messages`` (for chat). Failures are raised as the judges' classes:
:class:`TransientError` (429, 5xx, 408, timeouts, connection errors) is retried by the runtime,
:class:`RejectedError` (other 4xx, or a 200 answer that is not a completion) is not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import httpx

from evald.judges.base import JudgeTimeout, RejectedError, TransientError, classify_http
from evald.judges.http import AnswerTooLarge, connection_failed
from evald.targets.base import Endpoint, Generation, Output, http_message, openai_url, plain


def request_body(endpoint: Endpoint, generation: Generation) -> dict[str, Any]:
    """The JSON body of ``generation`` (the generation's own fields win over its params)."""
    body: dict[str, Any] = plain(generation.params)
    body["model"] = endpoint.model_id
    if generation.kind == "chat":
        body["messages"] = plain(generation.messages)
    else:
        body["prompt"] = generation.prompt
    return body


async def generate(
    http: httpx.AsyncClient, endpoint: Endpoint, generation: Generation, timeout: float
) -> Output:
    """One attempt: POST the generation and read the answer, within ``timeout`` seconds."""
    url = openai_url(endpoint.url, generation.kind)
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    try:
        # wait_for bounds the whole exchange (connect, queueing, body); httpx's own timeout
        # is off in the pooled client. Cancelling the wait closes the connection.
        response = await asyncio.wait_for(
            http.post(url, json=request_body(endpoint, generation), headers=headers), timeout
        )
    except (TimeoutError, httpx.TimeoutException):
        raise JudgeTimeout(f"no answer within {timeout:.3g}s") from None
    except AnswerTooLarge as exc:
        raise TransientError(str(exc)) from None
    except httpx.TransportError as exc:
        raise TransientError(connection_failed(exc, url)) from None
    if response.status_code >= 400:
        raise classify_http(response.status_code, http_message(response))
    return read_answer(response.content, generation.kind)


def read_answer(content: bytes, kind: str) -> Output:
    """The output of a 200 answer; :class:`RejectedError` when it is not a completion."""
    try:
        body = json.loads(content)
    except ValueError:
        raise RejectedError("unreadable answer: not JSON") from None
    choices = body.get("choices") if isinstance(body, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise RejectedError("unreadable answer: no choices")
    first = choices[0]
    if kind == "completion":
        text = first.get("text")
        return Output(text=text if isinstance(text, str) else "", response=body)
    message = first.get("message")
    if not isinstance(message, Mapping):
        raise RejectedError("unreadable answer: choices[0] has no message")
    content_ = message.get("content")
    calls = message.get("tool_calls")
    return Output(
        text=content_ if isinstance(content_, str) else "",
        tool_calls=tuple(c for c in calls if isinstance(c, Mapping))
        if isinstance(calls, list)
        else (),
        response=body,
    )
