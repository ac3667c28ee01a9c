"""Asking a judge: model resolution, cache, concurrency limit, retries, deadline, errors.

Fault -> status of the RPC (when the last attempt fails):

    no judge configured / invalid config      FAILED_PRECONDITION
    unknown autorater_model                    INVALID_ARGUMENT (autorater_config.autorater_model)
    judge rejects the call (401/403/404/400)   FAILED_PRECONDITION (not retried)
    429 / 5xx / timeout / connection error     retried; then UNAVAILABLE
    unparseable answer                         retried; then UNAVAILABLE
    the RPC deadline passes                    DEADLINE_EXCEEDED
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import weakref
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from evald.database import Backend
from evald.errors import DeadlineExceeded, FailedPrecondition, InvalidArgument, Unavailable
from evald.judges.backends import backends
from evald.judges.base import (
    Judge,
    JudgeCallError,
    JudgeRequest,
    JudgeTimeout,
    Media,
    RejectedError,
)
from evald.judges.cache import TABLES as CACHE_TABLES
from evald.judges.cache import JudgeCache, cache_key
from evald.judges.config import (
    HOW_TO_CONFIGURE,
    ConfigError,
    JudgesConfig,
    JudgeSpec,
    SamplingDefaults,
    load,
)
from evald.judges.http import JudgeHttp
from evald.judges.output import OutputError
from evald.judges.usage import CACHED, Usage, cost_of_failure, record
from evald.ops import telemetry, tracing

if TYPE_CHECKING:
    from evald.call import Call

log = logging.getLogger("evald.judges")
T = TypeVar("T")
Gate = Callable[[str, int], contextlib.AbstractAsyncContextManager[None]]
"""``gate(key, limit)``: holds one of ``limit`` slots named ``key`` shared by every process
of a cluster (see :class:`evald.jobs.ray_engine.RayGate`)."""
MODEL_FIELD = "autorater_config.autorater_model"


@dataclass(frozen=True)
class Target:
    """A resolved judge: which configured judge, and which model it is asked for."""

    spec: JudgeSpec
    model: str

    def describe(self) -> str:
        """``judge 'name' (backend, model m)`` for error messages; never a secret."""
        return f"judge '{self.spec.name}' ({self.spec.backend}, model {self.model})"


@dataclass(frozen=True)
class Answer(Generic[T]):
    """One sample's answer: the raw text, what was read from it, and whether it was cached."""

    text: str
    value: T
    cached: bool


class Runtime:
    """The judges of one configuration: the answer cache, per-loop clients and concurrency
    limits."""

    def __init__(
        self,
        config: JudgesConfig,
        on_open: Callable[[asyncio.Future[_Client]], None],
        backend: Backend | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.config = config
        self.gate = gate
        """Also holds a cluster-wide slot per call (``--engine ray``); None: this process's
        limit only."""
        self._on_open = on_open
        """Told of every judge client made (the server closes them all at shutdown)."""
        self.cache = None
        if config.cache_enabled:
            # Shared PostgreSQL when the server has one; else the SQLite file the config names.
            shared = backend is not None and backend.shared
            where = backend.open(CACHE_TABLES) if backend is not None and shared else None
            self.cache = JudgeCache(where or config.cache_path)
        self._limits: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()
        self.sessions = 0
        """Requests using this runtime now."""
        self.retired = False
        """Replaced by a newer config: closed when its last session ends."""
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Future[_Client]]
        ] = weakref.WeakKeyDictionary()

    def limit(self, spec: JudgeSpec) -> contextlib.AbstractAsyncContextManager[Any]:
        """What caps concurrent calls to ``spec``: a semaphore per event loop, and with a
        gate, also a cluster-wide slot (the limit then holds across every worker)."""
        per_loop = self._limits.setdefault(asyncio.get_running_loop(), {})
        if spec.name not in per_loop:
            per_loop[spec.name] = asyncio.Semaphore(spec.max_concurrency)
            telemetry.JUDGE_MAX_CONCURRENCY.labels(spec.name).set(spec.max_concurrency)
        if self.gate is None:
            return per_loop[spec.name]
        return _both(per_loop[spec.name], self.gate(f"judge:{spec.name}", spec.max_concurrency))

    async def judge(self, spec: JudgeSpec) -> Judge:
        """The client for ``spec`` on this event loop, made on first use and then reused.

        Shared by every request, so connections to the judge are pooled (no TCP or TLS
        handshake per request), and made in a thread: building an HTTP client loads the CA
        store, tens of milliseconds that must not stall the event loop's other calls.
        """
        loop = asyncio.get_running_loop()
        per_loop = self._clients.setdefault(loop, {})
        made = per_loop.get(spec.name)
        if made is None:
            made = per_loop[spec.name] = asyncio.ensure_future(asyncio.to_thread(_Client, spec))
            made.add_done_callback(self._on_open)
        try:
            return (await asyncio.shield(made)).judge
        except Exception:
            if per_loop.get(spec.name) is made:
                del per_loop[spec.name]  # a failed build is tried again by the next request
            raise

    async def aclose(self) -> None:
        """Close the judge connections this runtime opened on this event loop."""
        for made in self._clients.pop(asyncio.get_running_loop(), {}).values():
            if made.done() and not made.cancelled() and made.exception() is None:
                await made.result().http.aclose()

    def resolve(self, requested: str) -> Target:
        """The target for a request's ``autorater_model``; InvalidArgument if unknown."""
        try:
            spec, model = self.config.resolve(requested)
        except LookupError as exc:
            if not requested.strip():
                raise FailedPrecondition(
                    f"no default judge: set default_judge in the judge config, or name a model "
                    f"in {MODEL_FIELD}"
                ) from None
            raise InvalidArgument(MODEL_FIELD, str(exc)) from None
        return Target(spec, model)


RACY_SECONDS = 2.0
"""A file modified this recently before it was read is read again at the next request: file
times are coarse (a few milliseconds), so a rewrite of the same size may keep its stamp."""


class Judges:
    """The judges of one server: the runtime its judge configuration describes.

    The configuration is read when the server is built. A judge config *file* is watched: each
    judge session compares the file with what was last loaded and, when it changed, builds a new
    runtime; the old one is retired (its cache closed at once, its connections once its last
    session ends), as the API-keys file is reloaded. ``EVALD_JUDGE_*`` variables and the key
    variables a judge names are read from ``env`` when the configuration is (re)loaded, never
    per call.
    """

    def __init__(
        self,
        path: Path | None = None,
        table: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        backend: Backend | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.path = path
        """The watched judge config file; None: the configuration is fixed."""
        self.gate = gate
        """Cluster-wide call limits (``--engine ray``), given to every runtime."""
        self.backend = backend
        """Where the answer cache lives when the server shares a PostgreSQL database."""
        self.table = table
        """The server config file's ``[judges]`` table, if any."""
        self.env: Mapping[str, str] = {} if env is None else env
        self._loaded: bytes | None = None
        """The judge config file's content the current runtime was built from."""
        self._stamp: tuple[int, ...] | None = None
        """The file's identity, size and times when it was last read: while they stay the same,
        the file is not read again (one ``stat`` per request instead of a read). None when they
        cannot be trusted yet: see :data:`RACY_SECONDS`."""
        self._runtime: Runtime | None = None
        self._problem: str | None = None
        """Why there is no runtime: FAILED_PRECONDITION's message."""
        self._closing: set[asyncio.Task[None]] = set()
        """Closings of replaced runtimes' clients under way (a task needs a reference)."""
        self._open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[JudgeHttp]] = (
            weakref.WeakKeyDictionary()
        )
        """Every judge HTTP client made on each event loop, by any runtime of this server."""
        if path is None:
            self._build(lambda: load(None, table, self.env), "")

    def runtime(self) -> Runtime:
        """The runtime in force; FailedPrecondition when no judge is configured or the
        configuration is invalid."""
        if self.path is not None:
            self._watch(self.path)
        if self._runtime is None:
            raise FailedPrecondition(self._problem or "no judge is configured")
        return self._runtime

    def sampling_defaults(self) -> SamplingDefaults:
        """What unset ``autorater_config`` fields mean now (Vertex's values without a judge:
        the call fails later, when a judge is needed)."""
        if self.path is not None:
            self._watch(self.path)
        return self._runtime.config.sampling if self._runtime is not None else SamplingDefaults()

    def _watch(self, path: Path) -> None:
        try:
            info = os.stat(path)
        except OSError:
            stamp = None
        else:
            stamp = (info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        if stamp is not None and stamp == self._stamp:
            return
        read_at = time.time()
        try:
            content: bytes | None = path.read_bytes()
        except OSError:
            content, stamp = None, None
        if stamp is not None and read_at - stamp[3] / 1e9 < RACY_SECONDS:
            stamp = None  # changed just before it was read: a rewrite may keep the same stamp
        self._stamp = stamp
        if content == self._loaded and (self._runtime is not None or self._problem is not None):
            return
        self._loaded = content
        if content is None:
            self._replace(None)
            self._problem = (
                f"this metric needs an LLM judge and none is configured: the judge config file "
                f"{path} cannot be read; {HOW_TO_CONFIGURE}"
            )
            return
        self._build(lambda: load(path, None, self.env), f"judge config file {path}")
        log.info("judge configuration loaded", extra={"fields": {"file": str(path)}})

    def _build(self, read: Callable[[], JudgesConfig | None], what: str) -> None:
        try:
            config = read()
        except ConfigError as exc:
            self._replace(None)
            self._problem = f"the judge configuration is invalid: {exc}"
            if what:
                log.warning("%s not loaded: %s", what, exc)
            return
        self._replace(
            Runtime(config, self._opened, self.backend, self.gate) if config is not None else None
        )
        self._problem = (
            None
            if config is not None
            else f"this metric needs an LLM judge and none is configured; {HOW_TO_CONFIGURE}"
        )

    def _replace(self, new: Runtime | None) -> None:
        old, self._runtime = self._runtime, new
        if old is not None:
            self._retire(old)

    def _retire(self, old: Runtime) -> None:
        """Release a replaced runtime: its cache now, its connections once no request uses
        them."""
        if old.cache is not None:
            old.cache.close()
        old.retired = True
        if old.sessions == 0:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._closing.add(task := loop.create_task(old.aclose()))
            task.add_done_callback(self._closing.discard)

    def _opened(self, made: asyncio.Future[_Client]) -> None:
        if not made.cancelled() and made.exception() is None:
            self._open.setdefault(made.get_loop(), []).append(made.result().http)

    @asynccontextmanager
    async def session(self, call: Call) -> AsyncIterator[Session]:
        """A judge session for one request (FailedPrecondition if no judge is set up)."""
        rt = self.runtime()
        rt.sessions += 1
        try:
            yield Session(rt, call)
        finally:
            rt.sessions -= 1
            if rt.retired and rt.sessions == 0:
                await rt.aclose()

    async def aclose(self) -> None:
        """Close every judge connection opened on this event loop (server shutdown)."""
        for http in self._open.pop(asyncio.get_running_loop(), []):
            await http.aclose()  # a no-op for one a replaced runtime closed already

    def close(self) -> None:
        """Close the judge cache (the server's last step): what it was given is stored first."""
        if self._runtime is not None and self._runtime.cache is not None:
            self._runtime.cache.close(wait=10.0)


class _Client:
    """A judge and the pooled HTTP client it sends through."""

    def __init__(self, spec: JudgeSpec) -> None:
        # Timeouts are enforced per call; this client pools connections and caps answers.
        self.http = JudgeHttp(max(20, spec.max_concurrency))
        self.judge: Judge = backends()[spec.backend].client(spec, self.http)


class Session:
    """The judge calls of one request (the clients themselves are the runtime's)."""

    def __init__(self, rt: Runtime, call: Call) -> None:
        self.runtime = rt
        self.call = call
        self.calls = 0
        """Judge calls actually sent by this session (cache hits excluded)."""

    async def ask(
        self,
        target: Target,
        request: JudgeRequest,
        sample: int,
        read: Callable[[str], T],
    ) -> Answer[T]:
        """One sample's answer, from the cache or the judge; ``read`` parses it.

        ``read`` raises OutputError for an unusable answer, which is retried like a 5xx.
        """
        spec, config = target.spec, self.runtime.config
        self.check_media(target, request.media)
        if request.response_schema is not None and not spec.structured_output:
            # The judge is not sent the schema, so the prompt must carry the format.
            request = replace(
                request,
                prompt=f"{request.prompt}\n\n{format_instruction(request.response_schema)}",
                response_schema=None,
            )
        cache = self.runtime.cache if self.call.use_cache else None
        key = ""  # hashing a large prompt is only worth it when there is a cache
        if cache is not None:
            key = cache_key(spec.backend, spec.base_url or "", target.model, request, sample)
            stored = await cache.get(key)
            if stored is not None:
                try:
                    answer = Answer(stored, read(stored), cached=True)
                    record(spec.name, CACHED)
                    return answer
                except OutputError:
                    pass  # written by an older reader: ask again
        judge = await self.runtime.judge(spec)
        last: Exception | None = None
        for attempt in range(config.retry.max_attempts):
            if attempt:
                telemetry.JUDGE_RETRIES.labels(spec.name).inc()
                pause = config.retry.backoff(attempt - 1)
                remaining = self.call.remaining()
                if remaining is not None and remaining <= pause:
                    raise DeadlineExceeded(
                        f"{target.describe()}: the request deadline would pass before retry "
                        f"{attempt + 1} (last failure: {_reason(last)})"
                    )
                await asyncio.sleep(pause)
            remaining = self.call.remaining()
            if remaining is not None and remaining <= 0:
                raise DeadlineExceeded(f"{target.describe()}: the request deadline passed")
            timeout = config.timeout if remaining is None else min(config.timeout, remaining)
            start = time.perf_counter()
            outcome = "ok"
            cost: Usage | None = None  # None: cannot have cost tokens (refused, never sent)
            in_flight = telemetry.JUDGE_IN_FLIGHT.labels(spec.name)
            try:
                async with self.runtime.limit(spec):
                    self.calls += 1
                    in_flight.inc()
                    try:
                        with tracing.span(f"judge {spec.name}", model=target.model):
                            reply = await judge.generate(target.model, request, timeout)
                        cost = Usage.of_call(reply.tokens)
                    except BaseException as exc:
                        cost = cost_of_failure(exc)
                        raise
                    finally:
                        in_flight.dec()
                text = reply.text
                value = read(text)
            except RejectedError as exc:
                outcome = "rejected"
                raise FailedPrecondition(
                    redact(f"{target.describe()} rejected the call: {exc.reason}", spec)
                ) from None
            except (JudgeCallError, OutputError) as exc:
                outcome = type(exc).__name__
                last = exc
                remaining = self.call.remaining()
                if remaining is not None and remaining <= 0 and isinstance(exc, JudgeTimeout):
                    raise DeadlineExceeded(
                        f"{target.describe()}: no answer before the request deadline"
                    ) from None
                continue
            finally:
                elapsed = time.perf_counter() - start
                telemetry.JUDGE_CALLS.labels(spec.name, outcome).inc()
                if cost is not None:
                    record(spec.name, cost)
                telemetry.JUDGE_SECONDS.labels(spec.name).observe(elapsed)
                if log.isEnabledFor(logging.DEBUG):  # its fields are not built for nothing
                    log.debug(
                        "judge call",
                        extra={
                            "fields": {
                                "judge": spec.name,
                                "backend": spec.backend,
                                "model": target.model,
                                "sample": sample,
                                "attempt": attempt + 1,
                                "outcome": outcome,
                                "ms": round(elapsed * 1000, 3),
                            }
                        },
                    )
            if cache is not None:
                await cache.put(key, text)
            return Answer(text, value, cached=False)
        raise Unavailable(
            redact(
                f"{target.describe()} failed after {config.retry.max_attempts} attempt(s): "
                f"{_reason(last)}",
                spec,
            )
        )

    def check_media(self, target: Target, media: Sequence[Media]) -> None:
        """InvalidArgument naming the first part the judge cannot be shown, and why: a score
        for content the judge never saw would be a wrong score."""
        if not media:
            return  # most calls: no need to list the backends (a scan of their package)
        backend = backends()[target.spec.backend]
        for item in media:
            reason = backend.refusal(item)
            if reason is None and not target.spec.reads(item.mime_type, backend.carries):
                accepted = target.spec.media_types or ()
                reason = (
                    f"its model reads {', '.join(accepted)} only (media_types)"
                    if accepted
                    else "its model reads text only (media_types = [])"
                )
            if reason is not None:
                raise InvalidArgument(
                    item.path,
                    f"{target.describe()} cannot be shown this {item.mime_type or 'untyped'} "
                    f"part: {reason}",
                )


def format_instruction(schema: Mapping[str, Any]) -> str:
    """The output format for a judge that is not sent a response schema."""
    return (
        "Answer with one JSON object and nothing else, matching this JSON schema:\n"
        + json.dumps(schema, separators=(",", ":"))
    )


def redact(message: str, spec: JudgeSpec) -> str:
    """``message`` with the judge's key blanked, in case an endpoint echoed it back."""
    if spec.api_key is not None and spec.api_key.reveal():
        return message.replace(spec.api_key.reveal(), "***")
    return message


def _reason(exc: Exception | None) -> str:
    if isinstance(exc, JudgeCallError):
        return exc.reason
    if isinstance(exc, OutputError):
        return f"unreadable answer ({exc})"
    return "unknown failure"


@asynccontextmanager
async def _both(
    local: contextlib.AbstractAsyncContextManager[Any],
    cluster: contextlib.AbstractAsyncContextManager[None],
) -> AsyncIterator[None]:
    """This process's slot, then the cluster's: a process waits on its own limit first, so it
    never holds more cluster slots than it could use."""
    async with local, cluster:
        yield
