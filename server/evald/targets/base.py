"""What a model target call is made of: the endpoint, the generation asked for, its output,
the one error a failed generation raises, and the URL rules of OpenAI-compatible endpoints."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

FORMATS = frozenset({"nim", "openai", "gemini"})
"""``nim`` and ``openai`` both mean an OpenAI-compatible API; ``gemini`` the Gemini API."""

GEMINI_DEFAULT_URL = "https://generativelanguage.googleapis.com"
"""Where a ``gemini`` endpoint with an empty URL is served."""

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Endpoint:
    """The model under test: where it is served, which model, and how to authenticate."""

    url: str
    """A full ``…/v1/completions`` or ``…/v1/chat/completions`` URL, or a base URL (``…/v1``
    or the host root); for ``gemini`` the API base URL, or empty for Google's default."""
    model_id: str
    api_key: str | None = field(default=None, repr=False)
    """Sent as ``Authorization: Bearer`` (or Gemini's key header); never logged or shown."""
    format: str = "nim"
    """``nim`` | ``openai`` (both OpenAI-compatible) | ``gemini``."""

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown endpoint format {self.format!r}: one of {sorted(FORMATS)}")

    @property
    def base_url(self) -> str:
        """The URL the cache key and concurrency limit name (no credentials in it)."""
        if self.format == "gemini":
            return (self.url or GEMINI_DEFAULT_URL).rstrip("/")
        return openai_base(self.url)


@dataclass(frozen=True)
class Generation:
    """One output to generate: a completion of ``prompt``, or a chat reply to ``messages``."""

    kind: str
    """``completion`` | ``chat``."""
    prompt: str | None = None
    messages: tuple[Mapping[str, Any], ...] = ()
    """OpenAI chat messages, sent as given."""
    params: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Inference parameters, put into an OpenAI-compatible request body verbatim (mapped to
    Gemini's names for ``gemini``)."""

    def __post_init__(self) -> None:
        if self.kind == "completion":
            if self.prompt is None:
                raise ValueError("a completion needs a prompt")
        elif self.kind == "chat":
            if not self.messages:
                raise ValueError("a chat generation needs messages")
        else:
            raise ValueError(f"unknown generation kind {self.kind!r}: completion or chat")


@dataclass(frozen=True)
class Output:
    """What the model answered."""

    text: str
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    """OpenAI-shaped: ``{"id"?, "type": "function", "function": {"name", "arguments"}}`` with
    ``arguments`` a JSON string."""
    response: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """The response body (chat-completion shaped for ``gemini``)."""
    cached: bool = False

    def to_json(self) -> str:
        """The output as stored in the cache (``cached`` is not part of it)."""
        return json.dumps(
            {
                "text": self.text,
                "tool_calls": plain(self.tool_calls),
                "response": plain(self.response),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, stored: str, *, cached: bool) -> Output:
        """The output ``to_json`` wrote."""
        value = json.loads(stored)
        return cls(
            text=str(value["text"]),
            tool_calls=tuple(value.get("tool_calls") or ()),
            response=value.get("response") or {},
            cached=cached,
        )


class TargetError(Exception):
    """One generation failed (after its retries). ``reason`` is safe to show: it names the URL
    without credentials and the HTTP status or cause, never the key."""

    def __init__(self, reason: str, *, status: int | None = None, transient: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        """The HTTP status of the last failure, None when there was none (timeout, connection)."""
        self.transient = transient
        """True when a later try might succeed (rate limits, server errors, timeouts)."""


def plain(value: Any) -> Any:
    """``value`` with every mapping a dict and every sequence a list (JSON-ready)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def openai_base(url: str) -> str:
    """The API base of an OpenAI-compatible endpoint URL.

    A trailing ``/`` is dropped, then a ``/chat/completions`` or ``/completions`` suffix; a
    base left with no path at all (``http://host:8000``) becomes ``…/v1``.
    """
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        if path.endswith(suffix):
            path = path[: -len(suffix)].rstrip("/")
            break
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def openai_url(url: str, kind: str) -> str:
    """The URL a ``kind`` generation is posted to: the base (see :func:`openai_base`) plus
    ``/chat/completions`` for chat or ``/completions`` for a completion, whatever suffix the
    given URL had (a chat task pointed at ``…/v1/completions`` still reaches the chat API)."""
    parts = urlsplit(openai_base(url))
    suffix = "/chat/completions" if kind == "chat" else "/completions"
    return urlunsplit((parts.scheme, parts.netloc, parts.path + suffix, parts.query, ""))


_SECRET_PARAMS = ("key", "token", "secret", "sig", "auth", "password")


def safe_url(url: str) -> str:
    """``url`` fit to show: no user or password, and secret-looking query values masked."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "<invalid URL>"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    query = urlencode(
        [
            (k, "***" if any(s in k.lower() for s in _SECRET_PARAMS) else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="*",
    )
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` masked (error texts from HTTP libraries may echo headers)."""
    return text.replace(secret, "***") if secret else text


def http_message(response: httpx.Response) -> str:
    """A short reason from an error response: its ``error.message`` when it has one."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200].strip()
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])[:200]
        if isinstance(error, str):
            return error[:200]
    return ""
