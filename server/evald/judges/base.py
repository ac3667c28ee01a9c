"""The judge protocol every backend implements, and the errors a backend call may raise.

JudgeCallError          one call to a judge failed
├── TransientError      worth retrying: HTTP 429, 5xx, 408, timeouts, connection errors
│   └── JudgeTimeout    the call did not finish in time
└── RejectedError       not worth retrying: the judge refused the request (other 4xx)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class GenerationParams:
    """Sampling parameters passed to the judge; ``None`` leaves the backend's default."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: float | None = None
    max_output_tokens: int | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    stop_sequences: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The set parameters only, for cache keys and logs."""
        values: dict[str, Any] = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if getattr(self, name) not in (None, ())
        }
        if "stop_sequences" in values:
            values["stop_sequences"] = list(values["stop_sequences"])
        return values


@dataclass(frozen=True)
class Media:
    """An image, audio, video or document the judge must see, from part ``path`` of the
    request: inline bytes, or a URI the judge's endpoint fetches itself."""

    mime_type: str
    data: bytes = b""
    uri: str = ""
    path: str = ""
    """The request field it came from (error messages; not part of the cache key)."""
    label: str = ""
    """How the prompt refers to it, e.g. ``[media 1: image/png]``."""

    def digest(self) -> str:
        """A content address: the bytes' SHA-256, or the URI."""
        if self.uri:
            return f"uri:{self.uri}"
        return "sha256:" + hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class JudgeRequest:
    """Everything one judge call needs (also what the cache key is made of)."""

    prompt: str
    system_instruction: str | None = None
    response_schema: Mapping[str, Any] | None = None
    """A JSON schema for structured output, or None for free text."""
    params: GenerationParams = field(default_factory=GenerationParams)
    media: tuple[Media, ...] = ()
    """Media the prompt refers to by their labels; sent after the prompt, each after its
    label."""


@dataclass(frozen=True)
class Tokens:
    """What one answered judge call cost, as its endpoint reported it."""

    input: int
    """Prompt tokens (system instruction, prompt and media)."""
    output: int
    """Generated tokens, thinking included (billed as output)."""


@dataclass(frozen=True)
class Reply:
    """A judge's answer to one call."""

    text: str
    tokens: Tokens | None = None
    """None: the endpoint reported no token usage."""


class Judge(Protocol):
    """One configured judge: a backend talking to one endpoint."""

    name: str
    """The judge's name in the config (``[judges.<name>]``)."""
    backend: str
    """``gemini`` or ``openai``."""

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        """The judge's answer for ``request`` and what it cost, within ``timeout`` seconds.

        Raises :class:`TransientError` or :class:`RejectedError`; never logs secrets.
        """
        ...  # pragma: no cover


class JudgeCallError(Exception):
    """One call to a judge failed; ``reason`` is safe to show (no secrets, no prompt)."""

    def __init__(self, reason: str, status: int | None = None, reply: Reply | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.reply = reply
        """The answer when the judge answered but the answer is unusable (no text): it was
        paid for, so its tokens are counted."""


class TransientError(JudgeCallError):
    """A failure worth retrying (rate limit, server error, timeout, connection error)."""

    timeout: bool = False


class JudgeTimeout(TransientError):
    """The call did not finish within its timeout."""

    timeout = True


class RejectedError(JudgeCallError):
    """The judge refused the request (bad credentials, unknown model, bad parameters)."""


RETRYABLE_HTTP = frozenset({408, 429, 500, 502, 503, 504})


def classify_http(status: int, message: str) -> JudgeCallError:
    """The error for an HTTP failure status from a judge endpoint."""
    reason = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status in RETRYABLE_HTTP or status >= 500:
        return TransientError(reason, status)
    return RejectedError(reason, status)
