"""The server's model runtime: one worker process per loaded model, fed dynamic batches.

Inference never runs on the event loop, and a model's weights are held once per server
process, by its model worker (:mod:`evald.models.worker`), however many calls use it. Workers
start like scoring processes (:mod:`evald.scoring`): through the forkserver, each with its own
pipe whose answers an event-loop reader callback reads, and each dies with the server.

Calls to one model with the same forward options wait in one queue. A worker sends a batch
when ``batch_size`` items are queued, when no call has arrived for ``batch_wait_ms``, or
``HOLD_FACTOR`` times that after the batch opened, whichever comes first; one forward pass
answers every caller in it (a call larger than a batch is answered by several). While a
forward pass runs, new calls queue up: under load, batches fill without waiting. A caller
whose deadline passes or who is cancelled while queued leaves, and its items are not sent;
once sent, they run (the other callers of the batch need the pass) and their results are
dropped.

At most ``max_loaded_models`` worker processes run at once: a model that needs a worker beyond
that stops the least recently used one, once the calls already queued for it are answered, and
starts when that worker has exited (so the two models' memory is never held at once).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from evald.errors import DeadlineExceeded, EvalError, ResourceExhausted, Unavailable
from evald.models import worker as worker_main
from evald.models.base import ModelRequest, resolve_model
from evald.ops import telemetry

log = logging.getLogger(__name__)

STOP_SECONDS = 5.0
"""How long a stopping worker may take to exit before it is killed."""
HOLD_FACTOR = 4
"""A batch that keeps receiving calls is sent at the latest this many batch waits after it
opened."""

ModelKey = tuple[str, str, str]
"""A loaded model's identity: kind, model, load options."""


def _frozen(options: Mapping[str, Any]) -> str:
    # Options hold JSON-like values (lists too): their sorted repr is a hashable identity.
    return repr(sorted(options.items()))


@dataclass(eq=False)
class _Call:
    """One caller's items, queued: ``sent`` of them are in batches so far."""

    items: list[Any]
    future: asyncio.Future[list[Any]]
    results: list[Any] = field(default_factory=list)
    sent: int = 0
    answered: int = 0
    queued_at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.results = [None] * len(self.items)

    @property
    def unsent(self) -> int:
        return 0 if self.future.done() else len(self.items) - self.sent


@dataclass(eq=False)
class _Queue:
    """Calls of one forward-options set, oldest first."""

    options: dict[str, Any]
    calls: collections.deque[_Call] = field(default_factory=collections.deque)

    def prune(self) -> None:
        """Forget calls that are gone (deadline, cancelled) or fully sent."""
        while self.calls and self.calls[0].unsent == 0:
            self.calls.popleft()

    def unsent(self) -> int:
        return sum(call.unsent for call in self.calls)

    def take(self, size: int) -> list[tuple[_Call, int, int]]:
        """Up to ``size`` unsent items as (call, start, end) slices, in queue order."""
        batch: list[tuple[_Call, int, int]] = []
        room = size
        for call in self.calls:
            if room == 0:
                break
            count = min(room, call.unsent)
            if count:
                batch.append((call, call.sent, call.sent + count))
                call.sent += count
                room -= count
        self.prune()
        return batch


class _WorkerGone(Exception):
    """The worker process died or its pipe broke."""


class ModelRuntime:
    """:class:`evald.models.base.Models` with worker processes and dynamic batching."""

    def __init__(
        self,
        models_dir: Path | None,
        device: str = "cpu",
        *,
        max_loaded_models: int = 2,
        batch_size: int = 32,
        batch_wait_ms: float = 5.0,
    ) -> None:
        if max_loaded_models < 1 or batch_size < 1 or not batch_wait_ms >= 0:
            raise ValueError("max_loaded_models and batch_size must be at least 1, wait >= 0")
        self.models_dir = models_dir
        self.device = device
        self.max_loaded_models = max_loaded_models
        self.batch_size = batch_size
        self.batch_wait = batch_wait_ms / 1000
        self.forward_passes = 0
        """Forward passes run so far (every model)."""
        self.batch_sizes: collections.deque[int] = collections.deque(maxlen=10_000)
        """The sizes of the latest forward passes."""
        self._workers: collections.OrderedDict[ModelKey, _Worker] = collections.OrderedDict()
        """The workers calls go to, least recently used first."""
        self._running: set[_Worker] = set()
        """Workers whose process runs (those being stopped too): at most max_loaded_models."""
        self._freed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._context: Any = None
        self._closed = False

    # Models -----------------------------------------------------------------------------------

    def resolve(self, model: str) -> Path:
        return resolve_model(self.models_dir, model)

    async def run(
        self,
        request: ModelRequest,
        items: Sequence[Any],
        *,
        options: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> list[Any]:
        items = list(items)
        if not items:
            return []
        path = self.resolve(request.model)  # before any worker starts
        if self._closed:
            raise Unavailable("the model runtime is stopping")
        if deadline is not None and deadline <= time.monotonic():
            raise DeadlineExceeded(f"deadline passed before model {request.model!r} ran")
        loop = self._bind()
        key = (request.kind, request.model, _frozen(request.options))
        worker = self._workers.get(key)
        if worker is None:
            worker = self._workers[key] = _Worker(self, request, path)
        self._workers.move_to_end(key)
        call = _Call(items, loop.create_future())
        worker.submit(dict(options or {}), call)
        try:
            timeout = None if deadline is None else deadline - time.monotonic()
            async with asyncio.timeout(timeout):
                return await call.future
        except TimeoutError:
            raise DeadlineExceeded(
                f"deadline passed before model {request.model!r} answered"
            ) from None
        finally:
            if not call.future.done():
                call.future.cancel()  # its unsent items are dropped

    # Introspection ------------------------------------------------------------------------------

    def process_ids(self) -> dict[str, int]:
        """The process id of each running model worker, by model."""
        return {
            w.request.model: w.process.pid
            for w in self._running
            if w.process is not None and w.process.pid is not None
        }

    # Shutdown -----------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop every worker: queued and in-flight calls fail with UNAVAILABLE."""
        self._closed = True
        workers = {*self._workers.values(), *self._running}
        self._workers.clear()
        for one in workers:
            one.task.cancel()
        await asyncio.gather(*(one.task for one in workers), return_exceptions=True)

    # Workers' share ------------------------------------------------------------------------------

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The running loop, which the workers' tasks and readers live on. A runtime used by
        one event loop after another (tools calling ``asyncio.run`` twice) drops the workers of
        a loop that is no longer running."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None and self._loop.is_running():
                raise RuntimeError("a model runtime serves one event loop at a time")
            for one in {*self._workers.values(), *self._running}:
                one.kill()
            self._workers.clear()
            self._running.clear()
            self._loop, self._freed = loop, asyncio.Event()
        return loop

    async def _acquire_slot(self, worker: _Worker) -> None:
        """Wait until ``worker`` may start a process, stopping the least recently used one if
        ``max_loaded_models`` already run."""
        assert self._freed is not None
        while len(self._running) >= self.max_loaded_models:
            for key, other in self._workers.items():  # least recently used first
                if other is not worker and other in self._running:
                    del self._workers[key]
                    other.drain()
                    break
            self._freed.clear()
            await self._freed.wait()
        self._running.add(worker)

    def _release_slot(self, worker: _Worker) -> None:
        self._running.discard(worker)
        if self._freed is not None:
            self._freed.set()

    def _forget(self, worker: _Worker) -> None:
        key = worker.key
        if self._workers.get(key) is worker:
            del self._workers[key]

    def _context_for_start(self) -> Any:
        if self._context is None:
            methods = multiprocessing.get_all_start_methods()
            method = "forkserver" if "forkserver" in methods else "spawn"
            self._context = multiprocessing.get_context(method)
            if method == "forkserver":
                # The forkserver is shared with the scoring processes: same preload.
                self._context.set_forkserver_preload(["evald._forkserver_preload"])
        return self._context

    def _counted(self, model: str, size: int) -> None:
        self.forward_passes += 1
        self.batch_sizes.append(size)
        telemetry.MODEL_FORWARD_PASSES.labels(model).inc()
        telemetry.MODEL_BATCH_SIZE.labels(model).observe(size)


class _Worker:
    """One model's queues, and the process that runs them (started at first use)."""

    def __init__(self, runtime: ModelRuntime, request: ModelRequest, path: Path) -> None:
        self.runtime = runtime
        self.request = request
        self.key: ModelKey = (request.kind, request.model, _frozen(request.options))
        self.path = path
        self.queues: dict[str, _Queue] = {}
        self.wake = asyncio.Event()
        self.passed_at = 0.0
        """When the last forward pass ended (``time.monotonic()``)."""
        self.arrived_at = 0.0
        """When the last call was queued."""
        self.draining = False
        """Stopped as the least recently used: answer what is queued, then exit."""
        self.process: Any = None
        self.connection: Connection | None = None
        self.task = asyncio.get_running_loop().create_task(self._serve())

    def submit(self, options: dict[str, Any], call: _Call) -> None:
        queue = self.queues.setdefault(_frozen(options), _Queue(options))
        queue.calls.append(call)
        self.arrived_at = call.queued_at
        self.wake.set()

    def drain(self) -> None:
        self.draining = True
        self.wake.set()

    # The serving loop ---------------------------------------------------------------------------

    async def _serve(self) -> None:
        try:
            while True:
                queue = await self._next_queue()
                if queue is None:
                    return
                if self.connection is None:
                    # Load first, then pick again: calls queued during the load join the batch.
                    await self._load()
                    continue
                batch = queue.take(self.runtime.batch_size)
                if batch:
                    await self._forward(queue.options, batch)
        except asyncio.CancelledError:
            self._fail_all(Unavailable("the model runtime is stopping"))
            raise
        finally:
            self.runtime._forget(self)
            await self._stop()

    async def _next_queue(self) -> _Queue | None:
        """The queue to batch next, once its batch is full or its oldest item waited long
        enough; None when a draining worker has nothing left."""
        wait_for = self.runtime.batch_wait
        while True:
            for queue in self.queues.values():
                queue.prune()
            ready = [queue for queue in self.queues.values() if queue.calls]
            if not ready:
                self.queues.clear()
                if self.draining:
                    return None
                self.wake.clear()
                await self.wake.wait()
                continue
            full = [queue for queue in ready if queue.unsent() >= self.runtime.batch_size]
            if full:
                return full[0]
            oldest = min(ready, key=lambda queue: queue.calls[0].queued_at)
            # Waited from the end of the last pass too: under load, the callers a pass just
            # answered send their next items within moments, and would otherwise always miss
            # the batch of those that queued during the pass (two half batches taking turns).
            opened = max(oldest.calls[0].queued_at, self.passed_at)
            # Held while calls keep arriving: a burst the server is still parsing (a wave of
            # single-instance calls) goes in one pass, not in two halves. A lone call waits
            # ``batch_wait`` only, and a steady stream at most HOLD_FACTOR times that.
            close = min(max(opened, self.arrived_at) + wait_for, opened + HOLD_FACTOR * wait_for)
            left = close - time.monotonic()
            if left <= 0 or self.draining:
                return oldest
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self.wake.wait()

    async def _load(self) -> None:
        if self.draining:  # its process died while draining: do not start another
            self._fail_all(Unavailable(f"model worker of {self.request.model!r} stopped"))
            return
        await self.runtime._acquire_slot(self)
        request = self.request
        try:
            context = self.runtime._context_for_start()
            self.process, self.connection = await asyncio.to_thread(_start, context)
            message = ("load", request.kind, str(self.path), self.runtime.device, request.options)
            error = worker_main.error_of(await self._exchange(message))
        except _WorkerGone:
            error = await asyncio.to_thread(self._death)
        except EvalError as exc:  # the load options cannot be sent
            error = exc
        except OSError as exc:
            error = Unavailable(f"model worker of {request.model!r} did not start: {exc}")
        if error is not None:
            log.warning("model %s did not load: %s", request.model, error.message)
            await self._stop()
            self._fail_all(error)

    async def _forward(self, options: dict[str, Any], batch: list[tuple[_Call, int, int]]) -> None:
        items = [item for call, start, end in batch for item in call.items[start:end]]
        try:
            answer = await self._exchange(("forward", options, items))
            self.passed_at = time.monotonic()
        except _WorkerGone:
            answer = ("error", await asyncio.to_thread(self._death))
            await self._stop()
        except EvalError as exc:
            answer = ("error", exc)
        else:
            self.runtime._counted(self.request.model, len(items))
        error = worker_main.error_of(answer)
        results = [] if error is not None else answer[1]
        offset = 0
        for call, start, end in batch:
            if call.future.done():  # its caller left while the pass ran
                offset += end - start
                continue
            if error is not None:
                call.future.set_exception(error)
                continue
            call.results[start:end] = results[offset : offset + end - start]
            offset += end - start
            call.answered += end - start
            if call.answered == len(call.items):
                call.future.set_result(call.results)

    async def _exchange(self, message: tuple[Any, ...]) -> worker_main.Answer:
        """Send one message and wait for its answer, read by an event-loop callback."""
        connection = self.connection
        assert connection is not None
        try:
            payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise EvalError(f"model inputs cannot be sent to the worker: {exc}") from None
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[worker_main.Answer] = loop.create_future()
        fd = connection.fileno()

        def on_readable() -> None:
            loop.remove_reader(fd)
            try:
                received = pickle.loads(connection.recv_bytes())
            except Exception:  # end of file: the worker died
                if not answer.done():
                    answer.set_exception(_WorkerGone())
                return
            if not answer.done():
                answer.set_result(received)

        try:
            # The worker is idle, blocked reading: this write does not wait on its work.
            connection.send_bytes(payload)
        except OSError:
            raise _WorkerGone() from None
        loop.add_reader(fd, on_readable)
        try:
            return await answer
        except asyncio.CancelledError:
            loop.remove_reader(fd)
            raise

    def _death(self) -> EvalError:
        """The error of calls whose worker died: killed (by the kernel's out-of-memory killer,
        most often) is RESOURCE_EXHAUSTED, any other exit UNAVAILABLE (blocks: a thread's)."""
        process = self.process
        # The forkserver reports the exit status on the sentinel once it reaped the process.
        status = process.exitcode if process is not None and wait([process.sentinel], 1) else None
        model = self.request.model
        if status is None or status == -signal.SIGKILL:
            return ResourceExhausted(
                f"model worker of {model!r} was killed (out of memory?); it restarts on the next "
                "call"
            )
        return Unavailable(f"model worker of {model!r} exited ({status}); it restarts next call")

    def _fail_all(self, error: EvalError) -> None:
        for queue in self.queues.values():
            for call in queue.calls:
                if not call.future.done():
                    call.future.set_exception(error)
            queue.calls.clear()

    async def _stop(self) -> None:
        """Close the pipe (the worker exits at end of file) and wait until it has exited, so
        its memory is free before another model loads."""
        process, connection = self.process, self.connection
        self.process = self.connection = None
        if connection is not None:
            connection.close()
        if process is not None:
            await asyncio.shield(asyncio.to_thread(_reap, process))
        if self in self.runtime._running:
            self.runtime._release_slot(self)

    def kill(self) -> None:
        """Stop at once, without the event loop (which is gone)."""
        if self.connection is not None:
            self.connection.close()
        if self.process is not None and self.process.is_alive():
            self.process.kill()
        self.process = self.connection = None


def _start(context: Any) -> tuple[Any, Connection]:
    ours, theirs = context.Pipe(duplex=True)
    process = context.Process(
        target=worker_main.main, args=(theirs, list(sys.path)), daemon=True, name="evald-model"
    )
    process.start()
    theirs.close()
    return process, ours


def _reap(process: Any) -> None:
    # Waits on the sentinel, not join(): reading the exit status is left to multiprocessing
    # (a second reader of a forkserver child's status would wait for ever).
    if not wait([process.sentinel], STOP_SECONDS):
        with contextlib.suppress(OSError):
            os.kill(process.pid, signal.SIGKILL)
        wait([process.sentinel], STOP_SECONDS)
