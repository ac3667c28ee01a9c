"""Calling the model under test: cache, per-endpoint concurrency, bounded retries, timeouts.

Failure -> what :meth:`Targets.generate` does:

    429 / 5xx / 408 / timeout / connection error   retried with backoff; then TargetError
                                                   (transient=True)
    other 4xx, an answer that is not a completion  TargetError (transient=False), no retry
    the caller's task is cancelled                 the in-flight HTTP request is cancelled
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from evald.database import Database
from evald.judges.base import JudgeCallError, RejectedError
from evald.judges.http import MAX_ANSWER_BYTES, pooled_client
from evald.judges.retry import RetryPolicy
from evald.judges.runtime import Gate
from evald.targets import gemini, openai_compat
from evald.targets.base import (
    Endpoint,
    Generation,
    Output,
    TargetError,
    openai_url,
    redact,
    safe_url,
)
from evald.targets.cache import TargetCache, cache_key

if TYPE_CHECKING:
    from google import genai

log = logging.getLogger(__name__)


@dataclass
class _LoopState:
    """What one event loop's calls share: connections and limits are bound to a loop."""

    http: httpx.AsyncClient
    limits: dict[tuple[str, str, str], asyncio.Semaphore] = field(default_factory=dict)
    gemini: dict[tuple[str, str | None], asyncio.Future[genai.Client]] = field(default_factory=dict)


class Targets:
    """Generates outputs from model endpoints; one object serves every job of the server.

    At most ``concurrency`` (per call, else ``max_concurrency``) requests are in flight per
    endpoint (its format, base URL and model), across all callers. The limit of an endpoint is
    fixed by its first call: a later call giving another ``concurrency`` shares that limit.
    """

    def __init__(
        self,
        *,
        cache_path: Path | Database | None,
        max_concurrency: int = 32,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 (frozen: safe to share)
        timeout_seconds: float = 120.0,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        gate: Gate | None = None,
    ) -> None:
        self.gate = gate
        """Also holds a cluster-wide slot per call (``--engine ray``); None: this process's
        limit only."""
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.cache = TargetCache(cache_path) if cache_path is not None else None
        self.max_concurrency = max_concurrency
        self.retry = retry
        self.timeout_seconds = timeout_seconds
        self.max_answer_bytes = max_answer_bytes
        self.calls = 0
        """Attempts sent over the network."""
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _LoopState(
                pooled_client(self.max_concurrency, self.max_answer_bytes)
            )
        return state

    def _cluster_slot(
        self, key: tuple[str, str, str], concurrency: int | None
    ) -> contextlib.AbstractAsyncContextManager[None]:
        if self.gate is None:
            return contextlib.nullcontext()
        name = "target:" + " ".join(key)
        return self.gate(name, max(1, concurrency or self.max_concurrency))

    async def generate(
        self,
        endpoint: Endpoint,
        generation: Generation,
        *,
        timeout: float | None = None,
        max_retries: int | None = None,
        concurrency: int | None = None,
        use_cache: bool = True,
        scope: str = "",
    ) -> Output:
        """The model's output for ``generation``: from the cache (outputs stored under the
        same ``scope``), else from the endpoint.

        Each attempt has ``timeout`` seconds (default ``timeout_seconds``); ``max_retries``
        transient failures are retried (None: ``retry.max_attempts - 1``). Raises
        :class:`TargetError`.
        """
        cache = self.cache if use_cache else None
        key = cache_key(endpoint, generation, scope)
        if cache is not None:
            stored = await cache.get(key)
            if stored is not None:
                return stored
        output = await self._generate(endpoint, generation, timeout, max_retries, concurrency)
        if cache is not None:
            await cache.put(key, output)
        return output

    async def _generate(
        self,
        endpoint: Endpoint,
        generation: Generation,
        timeout: float | None,
        max_retries: int | None,
        concurrency: int | None,
    ) -> Output:
        state = self._state()
        limit_key = (endpoint.format, endpoint.base_url, endpoint.model_id)
        limit = state.limits.get(limit_key)
        if limit is None:
            limit = state.limits[limit_key] = asyncio.Semaphore(
                max(1, concurrency or self.max_concurrency)
            )
        timeout = self.timeout_seconds if timeout is None else timeout
        attempts = 1 + (self.retry.max_attempts - 1 if max_retries is None else max(0, max_retries))
        where = safe_url(
            endpoint.base_url
            if endpoint.format == "gemini"
            else openai_url(endpoint.url, generation.kind)
        )
        last: JudgeCallError | None = None
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(self.retry.backoff(attempt - 1))
            try:
                async with limit, self._cluster_slot(limit_key, concurrency):
                    return await self._attempt(state, endpoint, generation, timeout)
            except RejectedError as exc:
                raise TargetError(
                    redact(
                        f"{where} ({endpoint.model_id}) failed: {exc.reason}",
                        endpoint.api_key,
                    ),
                    status=exc.status,
                    transient=False,
                ) from None
            except JudgeCallError as exc:
                last = exc
                log.debug(
                    "target attempt failed",
                    extra={
                        "fields": {
                            "endpoint": where,
                            "model": endpoint.model_id,
                            "attempt": attempt + 1,
                            "status": exc.status,
                        }
                    },
                )
        assert last is not None
        raise TargetError(
            redact(
                f"{where} ({endpoint.model_id}) failed after {attempts} attempt(s): {last.reason}",
                endpoint.api_key,
            ),
            status=last.status,
            transient=True,
        )

    async def _attempt(
        self, state: _LoopState, endpoint: Endpoint, generation: Generation, timeout: float
    ) -> Output:
        if endpoint.format == "gemini":
            client = await self._gemini(state, endpoint)
            self.calls += 1
            return await gemini.generate(client, endpoint, generation, timeout)
        self.calls += 1
        return await openai_compat.generate(state.http, endpoint, generation, timeout)

    async def _gemini(self, state: _LoopState, endpoint: Endpoint) -> genai.Client:
        """The endpoint's client on this loop, made once in a thread (building one loads the
        CA store: tens of milliseconds the event loop must not wait)."""
        key = (endpoint.url, endpoint.api_key)
        made = state.gemini.get(key)
        if made is None:
            made = state.gemini[key] = asyncio.ensure_future(
                asyncio.to_thread(gemini.make_client, endpoint, state.http)
            )
        try:
            return await asyncio.shield(made)
        except Exception:
            if state.gemini.get(key) is made:
                del state.gemini[key]  # a failed build is tried again by the next call
            raise

    async def aclose(self) -> None:
        """Close this event loop's connections (a later call opens new ones)."""
        state = self._loops.pop(asyncio.get_running_loop(), None)
        if state is not None:
            for made in state.gemini.values():
                made.cancel()
            await state.http.aclose()
