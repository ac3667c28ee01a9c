"""Runs dataset jobs: submission, concurrent row scoring, progress, resume, cancellation.

A job reads its rows, skips those with a stored result, and scores the rest with at most
``job_concurrency`` rows in flight. Results are stored in batches (every ``FLUSH_ROWS`` rows or
``FLUSH_SECONDS``): a killed server loses at most the unflushed batch, which is scored again
after the restart; no stored row is scored twice. When every row has a result, the outputs are
written and the job SUCCEEDS.

Cancellation and ownership go through the store, so they also work when the job runs in another
server process on the same data dir. Each runner has its own owner id (new at every start, so a
restart with the same host name and PID, as PID 1 in a container, is not mistaken for the
process before it). Every ``HEARTBEAT_SECONDS`` the runner refreshes its jobs' heartbeats, stops
the ones marked CANCELLING (and those another runner took over), and takes over active jobs whose
process is gone or silent for ``STALE_SECONDS``; a taken-over CANCELLING job ends CANCELLED.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from google.rpc import code_pb2, status_pb2

from evald import api
from evald.database import Database
from evald.errors import EvalError, InvalidArgument, NotFound, internal_status
from evald.jobs import judge_usage, outputs, rows, sources
from evald.jobs.rows import DatasetRows
from evald.jobs.store import (
    CANCELLED,
    CANCELLING,
    DB_FILE,
    FAILED,
    FINISHED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    Job,
    JobStore,
    new_owner,
)

log = logging.getLogger(__name__)

FLUSH_ROWS = 200
FLUSH_SECONDS = 0.2
HEARTBEAT_SECONDS = 1.0
STALE_SECONDS = 15.0


class JobKind(Protocol):
    """Jobs of another API run by the same engine (leases, heartbeats, resume, cancellation):
    those stored with this ``kind``. Their stored ``request`` is the kind's own bytes;
    :meth:`run` scores the rows that have no stored result (:meth:`JobRunner.score_rows`) and
    ends the job (:meth:`JobRunner.end`)."""

    kind: str

    async def run(self, runner: JobRunner, name: str, job: Job) -> None:
        """Run (or resume) the stored job ``name``; raises EvalError to fail it."""
        ...  # pragma: no cover


class RowEngine(Protocol):
    """Scores rows outside this process (:class:`evald.jobs.ray_engine.RayEngine`)."""

    async def start(self) -> None:
        """Connect (raises EvalError when it cannot)."""
        ...  # pragma: no cover

    async def score(
        self,
        scorer: DatasetRows,
        data: Sequence[sources.Row],
        pending: Iterable[int],
        store: Callable[[list[tuple[int, bool, str]]], Awaitable[None]],
    ) -> None:
        """Score ``pending`` rows of ``data``, handing each finished batch to ``store``."""
        ...  # pragma: no cover


ScoreOne = Callable[[int], Awaitable[tuple[bool, str]]]
"""Scores one row index: ``(failed, result JSON)``."""


class JobRunner:
    """The dataset jobs of one server process: Vertex ``EvaluateDataset`` jobs, and those of
    each :class:`JobKind` given."""

    def __init__(
        self,
        data_dir: Path,
        evaluate: rows.Evaluate,
        *,
        dataset_root: Path | None,
        output_root: Path | None,
        concurrency: int = 16,
        max_jobs: int = 2,
        owner: str | None = None,
        kinds: Sequence[JobKind] = (),
        database: Database | None = None,
        lease_seconds: float = STALE_SECONDS,
        engine: RowEngine | None = None,
    ) -> None:
        # ``owner``: this runner's id in the job store; a new one (the usual case) unless given.
        # ``database``: the jobs' tables (shared PostgreSQL); else jobs.sqlite3 in ``data_dir``.
        self.store = JobStore(database or data_dir / DB_FILE, owner or new_owner())
        self.lease_seconds = lease_seconds
        """A job silent this long is taken over (by this runner or another replica)."""
        self.data_dir = data_dir
        self.dataset_root = dataset_root
        """Server-local datasets must be under it (None: anywhere)."""
        self.output_root = output_root
        """Server-local outputs must be under it (None: anywhere)."""
        self.evaluate = evaluate
        self.concurrency = concurrency
        self.kinds = list(kinds)
        self.engine = engine
        """Scores Vertex dataset jobs' rows elsewhere (``--engine ray``); None: here."""
        self._slots = asyncio.Semaphore(max_jobs)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancelled: set[str] = set()
        self._finished: dict[str, asyncio.Event] = {}
        self._beater: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Resume the jobs left active by a process that is gone, and start the heartbeat."""
        await self._adopt()
        self._beater = asyncio.ensure_future(self._heartbeat())

    async def stop(self) -> None:
        """Stop every job where it is (its stored rows stay; the next start resumes it)."""
        self._stopping = True
        if self._beater is not None:
            self._beater.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beater
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # Submission and control.

    async def submit(self, request: Any) -> Job:
        """Check an ``EvaluateDatasetRequest`` and store it as a QUEUED job; raises EvalError."""
        location = request.location or api.DEFAULT_LOCATION
        if not api.LOCATION.match(location):
            raise InvalidArgument("location", "must look like projects/P/locations/L")
        if not len(request.metrics):
            raise InvalidArgument("metrics", "name at least one metric")
        for i, metric in enumerate(request.metrics):
            if metric.WhichOneof("metric_spec") is None:
                raise InvalidArgument(f"metrics[{i}]", "no metric spec is set")
        await asyncio.to_thread(sources.check_source, request.dataset, self.dataset_root)
        job_id = str(secrets.randbits(62))
        if request.output_config.HasField("gcs_destination"):
            prefix = request.output_config.gcs_destination.output_uri_prefix
            field = "output_config.gcs_destination.output_uri_prefix"
            if not prefix:
                raise InvalidArgument(field, "name a directory")
            prefix = await asyncio.to_thread(
                outputs.check_destination, prefix, field, self.output_root
            )
        else:
            prefix = str(self.output_root or self.data_dir / "outputs")
        name = f"{location}/operations/{job_id}"
        await self.store.create(
            name, request.SerializeToString(), outputs.output_directory(prefix, job_id)
        )
        self._launch(name)
        job = await self.store.get(name)
        assert job is not None
        return job

    async def create(self, name: str, request: bytes, output_dir: str, kind: str) -> Job:
        """Store a QUEUED job of a :class:`JobKind` and start it."""
        await self.store.create(name, request, output_dir, kind)
        self._launch(name)
        return await self.get(name)

    async def get(self, name: str) -> Job:
        """The job called ``name``; NotFound if there is none."""
        job = await self.store.get(name)
        if job is None:
            raise NotFound(f"operation {name!r} does not exist")
        return job

    async def cancel(self, name: str) -> None:
        """Ask a job to stop; a finished job is left as it is."""
        state = await self.store.request_cancel(name)
        if state is None:
            raise NotFound(f"operation {name!r} does not exist")
        if state == CANCELLING and name in self._tasks:
            self._cancelled.add(name)
            self._tasks[name].cancel()

    async def wait(self, name: str, timeout: float) -> Job:
        """The job once finished, or as it is after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            job = await self.get(name)
            left = deadline - time.monotonic()
            if job.state in FINISHED or left <= 0:
                return job
            event = self._finished.setdefault(name, asyncio.Event())
            # Polled too: the job may run in another process sharing the data dir.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(left, 0.5))

    # Running.

    def _launch(self, name: str) -> None:
        if name in self._tasks or self._stopping:
            return
        task = asyncio.ensure_future(self._guarded(name))
        self._tasks[name] = task
        task.add_done_callback(lambda _: self._tasks.pop(name, None))

    async def _adopt(self) -> None:
        for name in await self.store.claim(self.lease_seconds):
            job = await self.store.get(name)
            if job is None:
                continue
            if job.state == CANCELLING:
                await self._end(name, CANCELLED, error=_cancelled_status())
                continue
            log.info("resuming dataset job", extra={"fields": {"job": name, "rows": job.rows_done}})
            self._launch(name)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                names = list(self._tasks)
                states = await self.store.beat(names)
                for name in names:
                    task = self._tasks.get(name)
                    if task is None:
                        continue
                    if name not in states:
                        # Taken over after this runner's lease lapsed (the process was paused
                        # past STALE_SECONDS): the new owner runs it; stop without ending it.
                        log.warning("dataset job taken over", extra={"fields": {"job": name}})
                        task.cancel()
                    elif states[name] == CANCELLING:
                        self._cancelled.add(name)
                        task.cancel()
                await self._adopt()
            except Exception:
                log.exception("dataset job heartbeat failed")

    async def _guarded(self, name: str) -> None:
        try:
            async with self._slots:
                await self._run(name)
        except asyncio.CancelledError:
            if name in self._cancelled:
                self._cancelled.discard(name)
                await self._end(name, CANCELLED, error=_cancelled_status())
            # Otherwise the server is stopping: the job stays active and resumes on restart.
        except EvalError as exc:
            await self._end(name, FAILED, error=exc.to_status())
        except Exception:
            log.exception("dataset job %s failed", name)
            await self._end(name, FAILED, error=internal_status())

    async def end(self, name: str, state: str, **values: Any) -> None:
        """Finish a job: ``state`` with ``response`` bytes (SUCCEEDED) or an ``error`` status."""
        await self._end(name, state, **values)

    async def _end(self, name: str, state: str, **values: Any) -> None:
        if "error" in values:
            values["error"] = values["error"].SerializeToString()
        await asyncio.shield(self.store.update(name, state=state, **values))
        self._finished.setdefault(name, asyncio.Event()).set()
        log.info("dataset job ended", extra={"fields": {"job": name, "state": state}})

    async def _run(self, name: str) -> None:
        job = await self.get(name)
        if job.state in FINISHED:
            return
        for kind in self.kinds:
            if job.kind == kind.kind:
                if job.state == QUEUED:
                    await self.store.update(name, state=RUNNING)
                await kind.run(self, name, job)
                return
        request = api.messages.EvaluateDatasetRequest.FromString(job.request)
        if job.state == QUEUED:
            await self.store.update(name, state=RUNNING)
        uris = list(request.dataset.gcs_source.uris)
        data = await asyncio.to_thread(sources.read_rows, uris, self.dataset_root)
        if job.rows_total and job.rows_total != len(data):
            raise InvalidArgument(
                "dataset.gcs_source.uris",
                f"the dataset changed while the job was stopped ({job.rows_total} rows before, "
                f"{len(data)} now)",
            )
        await self.store.update(name, rows_total=len(data))
        done = await self.store.done_rows(name)
        await self._score(name, request, data, done)
        await self._finish(name, job, request)

    async def _score(
        self, name: str, request: Any, data: list[sources.Row], done: set[int]
    ) -> None:
        metrics = list(request.metrics)
        labels = rows.metric_labels(metrics)
        autorater = request.autorater_config if request.HasField("autorater_config") else None
        scorer = DatasetRows(tuple(metrics), tuple(labels), autorater)
        if self.engine is not None:
            pending = (i for i in range(len(data)) if i not in done)

            async def store(batch: list[tuple[int, bool, str]]) -> None:
                await self.store.add_rows(name, batch)

            await self.engine.score(scorer, data, pending, store)
            return

        async def score(index: int) -> tuple[bool, str]:
            return await scorer(self.evaluate, index, data[index])

        await self.score_rows(name, (i for i in range(len(data)) if i not in done), score)

    async def score_rows(
        self, name: str, pending: Iterable[int], score: ScoreOne, concurrency: int | None = None
    ) -> None:
        """Score the ``pending`` rows of job ``name``, ``concurrency`` (default: the runner's)
        at a time, storing results in batches; scored rows are kept when cancelled."""
        queue: Iterator[int] = iter(pending)
        buffer: list[tuple[int, bool, str]] = []
        last_flush = time.monotonic()

        async def flush() -> None:
            nonlocal last_flush
            batch, buffer[:] = list(buffer), []
            last_flush = time.monotonic()
            if batch:
                await asyncio.shield(self.store.add_rows(name, batch))

        async def worker() -> None:
            for index in queue:  # one shared iterator: each row goes to one worker
                failed, line = await score(index)
                buffer.append((index, failed, line))
                if len(buffer) >= FLUSH_ROWS or time.monotonic() - last_flush > FLUSH_SECONDS:
                    await flush()

        try:
            await asyncio.gather(*(worker() for _ in range(concurrency or self.concurrency)))
        finally:
            await flush()  # also on cancel: scored rows are kept

    async def _finish(self, name: str, job: Job, request: Any) -> None:
        lines = await self.store.results(name)
        metrics = list(request.metrics)

        def summarize() -> tuple[list[Any], dict[str, Any]]:  # seconds of CPU: off the loop
            records = [json.loads(line) for line in lines]
            found = outputs.summaries(metrics, records)
            failed = sum(1 for r in records if rows.failed(r))
            aggregation = outputs.aggregation_json(found, len(records), failed)
            aggregation.update(judge_usage.section(records))
            outputs.write(job.output_dir, lines, aggregation, self.output_root)
            return found, aggregation

        found, _ = await asyncio.to_thread(summarize)
        response = api.messages.EvaluateDatasetResponse()
        response.aggregation_output.CopyFrom(
            outputs.aggregation_output(request.dataset, metrics, found)
        )
        response.output_info.gcs_output_directory = job.output_dir
        await self._end(name, SUCCEEDED, response=response.SerializeToString())


def _cancelled_status() -> status_pb2.Status:
    return status_pb2.Status(code=code_pb2.CANCELLED, message="the operation was cancelled")
