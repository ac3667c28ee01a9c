"""What a judge call needs to know about the RPC it serves: autorater config, deadline, cache.

The handler API (``Handler.evaluate(metric_input, path)``) does not carry the request or the
RPC context, so the transport binds a :class:`CallContext` around each request with
:func:`scope`; judge-backed handlers read it with :func:`current`. Outside any scope (unit
tests, or a transport that does not bind one yet) the defaults apply: no autorater config, no
deadline beyond the per-call timeout, cache on.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

CACHE_METADATA_KEY = "x-evald-judge-cache"
"""Request metadata (gRPC) / header (HTTP): ``off`` makes this request skip the judge cache."""


@dataclass(frozen=True)
class CallContext:
    """Per-request judge settings."""

    autorater_config: Any | None = None
    """The request's ``AutoraterConfig`` message, or None when unset."""
    deadline: float | None = None
    """The RPC deadline as a ``time.monotonic()`` value, or None for no deadline."""
    use_cache: bool = True

    def remaining(self) -> float | None:
        """Seconds left before the deadline (negative once passed), or None."""
        return None if self.deadline is None else self.deadline - time.monotonic()


_DEFAULT = CallContext()
_CURRENT: ContextVar[CallContext | None] = ContextVar("evald_judge_call", default=None)


def from_request(
    request: Any,
    time_remaining: float | None = None,
    metadata: Iterable[tuple[str, Any]] = (),
) -> CallContext:
    """The context of an EvaluateInstancesRequest, its time left and its metadata."""
    config = request.autorater_config if request.HasField("autorater_config") else None
    use_cache = all(
        not (key.lower() == CACHE_METADATA_KEY and str(value).strip().lower() in ("off", "0", "no"))
        for key, value in metadata
    )
    deadline = None if time_remaining is None else time.monotonic() + time_remaining
    return CallContext(autorater_config=config, deadline=deadline, use_cache=use_cache)


@contextmanager
def scope(context: CallContext) -> Iterator[CallContext]:
    """Make ``context`` the current one for the code (and tasks) run inside."""
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)


def current() -> CallContext:
    """The context bound by the transport, or the defaults."""
    return _CURRENT.get() or _DEFAULT
