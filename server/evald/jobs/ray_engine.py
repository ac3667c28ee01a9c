"""Scoring dataset rows on a Ray cluster (``--engine ray``): for ``evald serve``'s dataset jobs
and ``evald evaluate``'s in-process scoring.

The driver (the evald process running the job) keeps the job store as the source of truth. It
sends the rows that have no stored result to Ray as tasks over batches of row indices (with the
rows themselves), at most ``max_in_flight`` batches at a time, and stores each finished batch as
it arrives (keyed by row index, ``INSERT OR IGNORE``: a batch retried by Ray after a lost worker,
or one whose rows another driver already stored, changes nothing). A cancelled job cancels its
Ray tasks. Ray tasks rather than Ray Data: a job's rows are already in memory, each batch's
results must reach the store as soon as they exist (the resume point), and Ray's task retry is
the whole failure story we need.

Each task builds the scoring parts from a picklable description (the server's
:class:`~evald.config.Settings`) once per worker process, and scores with the same evaluator
(:class:`evald.service.Evaluator`) and row code (:mod:`evald.jobs.rows`) as local scoring, so
scores are identical. Judge and target calls made on the workers share cluster-wide limits: a
named Ray actor (:class:`Limiter`) hands out leases, renewed while held, that expire when their
worker dies.

``ray`` is an optional dependency (``pip install 'evald[ray]'``): it is imported only when the
engine is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import json
import os
import pickle
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from evald.config import Settings
from evald.errors import FailedPrecondition, Unavailable
from evald.jobs import rows
from evald.jobs.sources import Row
from evald.judges.runtime import Gate

MISSING = "--engine ray needs Ray: pip install 'evald[ray]'"
NAMESPACE = "evald"
LIMITER = "evald-limiter"
"""The name of the cluster-wide limiter actor (in the ``evald`` namespace)."""
BATCH_ROWS = 250
"""Rows per Ray task: large enough that a task's fixed cost (~1 ms) is small per row."""
TASK_RETRIES = 3
"""Times Ray re-runs a batch whose worker died."""
CONNECT_SECONDS = 10.0
"""How long the cluster's address may take to accept a connection."""
LEASE_SECONDS = 30.0
"""A limiter lease lapses this long after its last renewal (its worker is then gone)."""

Store = Callable[[list[tuple[int, bool, str]]], Awaitable[None]]
"""Stores one finished batch of ``(row index, failed, result JSON)``."""


def require() -> Any:
    """The ``ray`` module; FailedPrecondition (one line) when Ray is not installed. (Typed
    ``Any``: Ray's own stubs are partial.)"""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise FailedPrecondition(MISSING) from None


class RowScorer(Protocol):
    """What one task does with one row: picklable, so it travels to the workers."""

    async def __call__(
        self, evaluate: rows.Evaluate, index: int, row: Row
    ) -> tuple[bool, str]:  # pragma: no cover
        ...


# The workers' side.


@dataclass
class _Worker:
    """One worker process's scoring parts for one settings value, and its event loop (the
    judges' clients are bound to a loop, so every task of the process runs on this one)."""

    loop: asyncio.AbstractEventLoop
    evaluate: rows.Evaluate
    concurrency: int


_WORKERS: dict[bytes, _Worker] = {}
"""Per worker process, by pickled settings: built by the first task, reused by the next."""


def build_services(settings: Settings, gate: Gate | None) -> Any:
    """The evaluator's services as :meth:`evald.app.App.build` makes them, with the judges'
    calls through ``gate``."""
    from evald import metric_registry
    from evald.call import Services
    from evald.judges.runtime import Judges
    from evald.metrics.catalog import Catalog
    from evald.models.runtime import ModelRuntime

    return Services(
        Judges(settings.judge_config, settings.judges, os.environ, gate=gate),
        metric_registry.sandbox(settings),
        Catalog.discover(settings.metric_module_names()),
        metric_registry.store(settings),
        ModelRuntime(
            settings.models_dir,
            settings.model_device,
            max_loaded_models=settings.max_loaded_models,
            batch_size=settings.model_batch_size,
            batch_wait_ms=settings.model_batch_wait_ms,
        ),
    )


def _worker(blob: bytes) -> _Worker:
    found = _WORKERS.get(blob)
    if found is None:
        from evald.service import Evaluator

        settings: Settings = pickle.loads(blob)
        evaluator = Evaluator(build_services(settings, RayGate()))
        loop = asyncio.new_event_loop()
        concurrency = settings.job_concurrency
        found = _WORKERS[blob] = _Worker(loop, evaluator.evaluate_instances, concurrency)
    return found


def score_batch(
    settings: bytes, scorer: RowScorer, batch: Sequence[tuple[int, Row]]
) -> list[tuple[int, bool, str]]:
    """The Ray task: ``batch``'s ``(row index, failed, result JSON)``, ``concurrency`` rows
    (the job's) at a time on this worker."""
    worker = _worker(settings)
    return worker.loop.run_until_complete(_score_all(worker, scorer, batch))


async def _score_all(
    worker: _Worker, scorer: RowScorer, batch: Sequence[tuple[int, Row]]
) -> list[tuple[int, bool, str]]:
    slots = asyncio.Semaphore(worker.concurrency)

    async def one(index: int, row: Row) -> tuple[int, bool, str]:
        async with slots:
            failed, line = await scorer(worker.evaluate, index, row)
        return index, failed, line

    return list(await asyncio.gather(*(one(index, row) for index, row in batch)))


# The cluster-wide limiter.


class Limiter:
    """Cluster-wide slots (the Ray actor :data:`LIMITER`, async): at most ``limit`` leases of
    a key are held at once. A lease lapses ``ttl`` seconds after it was taken or last renewed,
    so the slots of a worker that died come back."""

    def __init__(self) -> None:
        self.leases: dict[str, dict[str, float]] = {}
        self.peaks: dict[str, int] = {}
        self.changed = asyncio.Event()

    def _held(self, key: str) -> dict[str, float]:
        held = self.leases.setdefault(key, {})
        now = time.monotonic()
        for lease, expiry in list(held.items()):
            if expiry < now:
                del held[lease]
        return held

    async def acquire(self, key: str, limit: int, ttl: float) -> str:
        """A new lease of ``key``, once fewer than ``limit`` are held."""
        while True:
            held = self._held(key)
            if len(held) < limit:
                lease = uuid.uuid4().hex
                held[lease] = time.monotonic() + ttl
                self.peaks[key] = max(self.peaks.get(key, 0), len(held))
                return lease
            self.changed.clear()
            # Woken by a release; polled too, for leases that lapse.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.5)

    async def renew(self, key: str, lease: str, ttl: float) -> bool:
        """Extend a lease; False if it had lapsed (it is then gone)."""
        held = self._held(key)
        if lease not in held:
            return False
        held[lease] = time.monotonic() + ttl
        return True

    async def release(self, key: str, lease: str) -> None:
        """Give a slot back."""
        self.leases.get(key, {}).pop(lease, None)
        self.changed.set()

    async def peak(self, key: str) -> int:
        """The most leases of ``key`` ever held at once."""
        return self.peaks.get(key, 0)


def limiter() -> Any:
    """The limiter actor, made by the first caller (detached: it outlives any one driver, so
    replicas and restarts share it)."""
    ray = require()

    actor = ray.remote(num_cpus=0, max_concurrency=10_000)(Limiter)
    return actor.options(
        name=LIMITER, namespace=NAMESPACE, get_if_exists=True, lifetime="detached"
    ).remote()


class RayGate:
    """``gate(key, limit)`` through the :class:`Limiter` actor: holds a lease while the block
    runs, renewing it every third of :data:`LEASE_SECONDS`."""

    def __init__(self, ttl: float = LEASE_SECONDS) -> None:
        self.ttl = ttl
        self._actor: Any = None

    async def _limiter(self) -> Any:
        if self._actor is None:
            if not require().is_initialized():
                # A driver's call before it joined the cluster: never start a cluster here.
                raise Unavailable("not connected to the Ray cluster yet; retry")
            self._actor = await asyncio.to_thread(limiter)
        return self._actor

    @contextlib.asynccontextmanager
    async def __call__(self, key: str, limit: int) -> AsyncIterator[None]:
        actor = await self._limiter()
        lease = await actor.acquire.remote(key, limit, self.ttl)

        async def renew() -> None:
            while True:
                await asyncio.sleep(self.ttl / 3)
                await actor.renew.remote(key, lease, self.ttl)

        renewing = asyncio.ensure_future(renew())
        try:
            yield
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            await asyncio.shield(actor.release.remote(key, lease))


# The driver's side.


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``auto``, ``ray://host:port``, ``host:port``) or
    start one in this process (``local``); FailedPrecondition without Ray, Unavailable when the
    cluster cannot be reached."""
    ray = require()

    if ray.is_initialized():
        return
    reachable(address)
    try:
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Unavailable(f"cannot reach the Ray cluster at {address!r}: {first}") from None


def reachable(address: str, timeout: float = CONNECT_SECONDS) -> None:
    """Unavailable when ``address`` names a host and port that take no TCP connection: Ray
    would retry such an address without end (and a server would never start nor stop)."""
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise Unavailable(f"Ray address {address!r} must be auto, local, HOST:PORT or ray://...")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout).close()
    except OSError as exc:
        raise Unavailable(f"cannot reach the Ray cluster at {address!r}: {exc}") from None


class RayEngine:
    """Scores rows on Ray for one driver process (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        *,
        batch_rows: int = BATCH_ROWS,
        max_in_flight: int = 0,
    ) -> None:
        self.settings = settings
        self.batch_rows = batch_rows
        self.max_in_flight = max_in_flight
        """Batches submitted and not yet stored (0: twice the cluster's CPUs)."""
        self._blob = pickle.dumps(settings)
        self._task: Any = None
        self._settings_ref: Any = None

    async def start(self) -> None:
        """Connect to the cluster (once)."""
        if self._task is None:
            await asyncio.to_thread(self._start)

    def _start(self) -> None:
        connect(self.settings.ray_address)
        ray = require()

        limiter()  # made here so that workers only look it up
        self._settings_ref = ray.put(self._blob)
        if not self.max_in_flight:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.max_in_flight = max(2, 2 * cpus)
        self._task = ray.remote(max_retries=TASK_RETRIES)(score_batch)

    async def score(
        self,
        scorer: RowScorer,
        data: Sequence[Row],
        pending: Iterable[int],
        store: Store,
    ) -> None:
        """Score the ``pending`` rows of ``data`` on the cluster, storing each batch as it
        ends; cancelled, it cancels the batches in flight (stored rows stay)."""
        await self.start()
        ray = require()

        indices = iter(pending)
        in_flight: dict[asyncio.Future[Any], Any] = {}

        def submit() -> bool:
            chunk = list(itertools.islice(indices, self.batch_rows))
            if not chunk:
                return False
            ref = self._task.remote(self._settings_ref, scorer, [(i, data[i]) for i in chunk])
            in_flight[asyncio.wrap_future(ref.future())] = ref
            return True

        try:
            while len(in_flight) < self.max_in_flight and submit():
                pass
            while in_flight:
                done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    del in_flight[future]
                    try:
                        batch = future.result()
                    except ray.exceptions.RayError as exc:
                        raise Unavailable(f"a Ray task failed: {_first_line(exc)}") from None
                    await asyncio.shield(store(batch))
                    submit()
        finally:
            for future, ref in in_flight.items():
                future.cancel()  # its result is never read
                with contextlib.suppress(Exception):
                    ray.cancel(ref)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[-1] if text else type(exc).__name__


def records(batch: Sequence[tuple[int, bool, str]]) -> list[tuple[int, dict[str, Any]]]:
    """A batch's results as ``(row index, record)``."""
    return [(index, json.loads(line)) for index, _, line in batch]
