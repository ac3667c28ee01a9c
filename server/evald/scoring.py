"""Scoring processes: where large batches of a computed metric are scored, off the event loop.

CPU-bound scoring in a thread still holds the interpreter lock, so it slows the event loop (and
every other call) of its process; separate processes do not. Each evald process keeps one pool
of ``scoring_processes()`` processes, started on first use (or by :func:`warm_scoring_pool`)
through a forkserver: a fresh interpreter, not a fork of a process running gRPC threads.

Each scoring process has its own pipe and does one job at a time. A job is written to an idle
process from the event loop and its answer read by an event-loop reader callback, so a job costs
the server two pipe writes and two reads (~30 µs), where ``ProcessPoolExecutor`` cost ~0.5 ms of
its queue-feeder and manager threads. Any failure (a process that died, a payload that cannot be
pickled) is reported as :class:`ScoringUnavailable`; the caller then scores in a thread.
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
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from evald.orphans import die_with_parent

log = logging.getLogger(__name__)

Job = tuple[Callable[..., Any], tuple[Any, ...]]
"""A picklable function and its arguments."""


SCORING_CPUS_ENV = "EVALD_SCORING_CPUS"
"""Cores scoring processes may run on (``0,1``), set by a pinned server worker: a worker is
pinned to one core, but its scoring processes are not, so a core left idle by a worker with
fewer calls in flight is used by the other worker's scoring."""


class ScoringUnavailable(Exception):
    """The job could not be run in a scoring process (none configured, one died, bad payload)."""


class JobLost(ScoringUnavailable):
    """The scoring process died while running the job (out of memory, killed)."""


# Configuration -------------------------------------------------------------------------------

_lock = threading.Lock()
_pool: _Pool | None = None
_processes: int | None = 0
"""Pool size: 0 scores in a thread (the default until a server configures it), None: one per
core this process may run on."""


def configure_scoring(processes: int | None) -> None:
    """Set how many scoring processes this process uses: 0 for none (a thread), None for one
    per core its scoring processes may run on (for a pinned server worker: every core of the
    supervisor, so a worker that gets most of the connections can still use them all)."""
    global _processes, _pool
    with _lock:
        if processes == _processes:
            return
        _processes, old, _pool = processes, _pool, None
    if old is not None:
        old.close(wait=False)


def scoring_processes() -> int:
    """How many scoring processes the pool has (or will have); 0 if scoring uses a thread."""
    if _processes is None:
        cpus = os.environ.get(SCORING_CPUS_ENV, "")
        return len(cpus.split(",")) if cpus else available_cores()
    return _processes


def process_ids() -> list[int]:
    """The process ids of this process's scoring processes, idle or busy."""
    pool = _pool
    return [] if pool is None else pool.process_ids()


def available_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _current_pool() -> _Pool | None:
    global _pool
    size = scoring_processes()
    if size <= 0:
        return None
    with _lock:
        if _pool is None:
            _pool = _Pool(size)
        return _pool


def warm_scoring_pool() -> None:
    """Start every scoring process now (blocking), so the first large request does not wait."""
    pool = _current_pool()
    if pool is None:
        return
    try:
        pool.fill()
    except Exception:  # large batches will then find out, and fall back to a thread
        log.warning("scoring processes did not start", exc_info=True)


def shutdown_scoring() -> None:
    """Stop this process's scoring processes, waiting for idle ones to exit."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.close(wait=True)


async def run_job(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in a scoring process; raises :class:`ScoringUnavailable` if it cannot
    be run there (the caller then uses a thread). Exceptions of ``function`` itself are the
    caller's to avoid: return a value that says so (it must not raise)."""
    pool = _current_pool()
    if pool is None:
        raise ScoringUnavailable("no scoring processes are configured")
    try:
        payload = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise ScoringUnavailable(f"job cannot be sent: {exc}") from None
    worker = await pool.acquire()
    return await worker.run(payload, pool)


# The pool ------------------------------------------------------------------------------------


class _Pool:
    """``size`` scoring processes; idle ones wait in a list, callers in a queue."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._idle: list[_Process] = []
        self._all: set[_Process] = set()
        """Every live process, idle or busy."""
        self._starting = 0
        self._live = 0
        self._waiters: collections.deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]]
        self._waiters = collections.deque()
        self.closed = False
        self._context = _context()

    def fill(self) -> None:
        """Start processes until the pool has ``size`` (blocking)."""
        while True:
            with self._lock:
                if self.closed or self._live + self._starting >= self.size:
                    return
                self._starting += 1
            self._started(self._start())

    def _start(self) -> _Process | None:
        try:
            return _Process(self._context)
        except Exception:
            log.warning("a scoring process did not start", exc_info=True)
            return None

    def _started(self, process: _Process | None) -> None:
        with self._lock:
            self._starting -= 1
            if process is None:
                return
            self._live += 1
            self._all.add(process)
        self.release(process)

    async def acquire(self) -> _Process:
        """An idle process, waiting (and starting one, up to ``size``) if there is none."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.closed:
                raise ScoringUnavailable("the scoring processes are stopping")
            if self._idle:
                return self._idle.pop()
            start = self._live + self._starting < self.size
            if start:
                self._starting += 1
            elif self._live + self._starting == 0:
                raise ScoringUnavailable("no scoring process could be started")
            waiter: asyncio.Future[_Process] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            if start:
                # The process joins the pool when it is up even if this caller is cancelled
                # meanwhile (its start cannot be stopped): the callback, not this caller, adds it.
                starting = asyncio.ensure_future(asyncio.to_thread(self._start))
                starting.add_done_callback(self._on_started)
                process = await asyncio.shield(starting)
                if process is None and not waiter.done():
                    with self._lock:
                        self._discard_waiter(loop, waiter)
                    raise ScoringUnavailable("a scoring process did not start")
            return await waiter
        except asyncio.CancelledError:
            with self._lock:
                self._discard_waiter(loop, waiter)
            if waiter.done() and not waiter.cancelled():  # handed over as we were cancelled
                self.release(waiter.result())
            raise

    def _on_started(self, starting: asyncio.Future[_Process | None]) -> None:
        failed = starting.cancelled() or starting.exception() is not None
        self._started(None if failed else starting.result())

    def _discard_waiter(self, loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[Any]) -> None:
        with contextlib.suppress(ValueError):
            self._waiters.remove((loop, waiter))

    def release(self, process: _Process) -> None:
        """Give an idle process to the next waiter, or keep it (any thread may call this)."""
        with self._lock:
            if self.closed:
                process.stop()
                self._live -= 1
                self._all.discard(process)
                return
            while self._waiters:
                loop, waiter = self._waiters.popleft()
                try:
                    loop.call_soon_threadsafe(_hand_over, waiter, process, self)
                except RuntimeError:  # that caller's event loop is closed
                    continue
                return
            self._idle.append(process)

    def process_ids(self) -> list[int]:
        """The ids of the live processes."""
        with self._lock:
            return [p.process.pid for p in self._all if p.process.pid is not None]

    def lost(self, process: _Process) -> None:
        """``process`` died, broke or was given up: kill it and forget it (the next acquire
        starts a replacement)."""
        process.connection.close()
        if process.process.is_alive():
            process.process.kill()
        # Not joined here: the forkserver reaps it, and multiprocessing reads its exit status
        # when the next process starts (a second reader of that status would wait for ever).
        with self._lock:
            self._live -= 1
            self._all.discard(process)

    def close(self, *, wait: bool) -> None:
        """Stop idle processes now and busy ones when their job ends."""
        with self._lock:
            self.closed = True
            idle, self._idle = self._idle, []
            self._live -= len(idle)
            self._all.difference_update(idle)
            waiters, self._waiters = list(self._waiters), collections.deque()
        for process in idle:
            process.stop(wait=wait)
        for loop, waiter in waiters:
            with contextlib.suppress(RuntimeError):  # that caller's event loop is closed
                loop.call_soon_threadsafe(_fail, waiter)


def _hand_over(waiter: asyncio.Future[Any], process: _Process, pool: _Pool) -> None:
    if waiter.done():  # its caller was cancelled meanwhile
        pool.release(process)
    else:
        waiter.set_result(process)


def _fail(waiter: asyncio.Future[Any]) -> None:
    if not waiter.done():
        waiter.set_exception(ScoringUnavailable("the scoring processes are stopping"))


FORKSERVER_PARENT = "EVALD_FORKSERVER_PARENT"
"""The environment variable that names the process a scoring forkserver belongs to
(:func:`own_forkserver`). The forkserver watches that process while it loads the metrics
(:mod:`evald._forkserver_preload`); a parent that died before the watch began is then noticed at
once, where the parent the forkserver would see by then is whoever adopted it."""


def own_forkserver() -> None:
    """Name this process as the parent of the forkserver it will start. Call it while the
    process has a single thread: changing the environment is not thread-safe."""
    os.environ[FORKSERVER_PARENT] = str(os.getpid())


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload(["evald._forkserver_preload"])
    return context


class _Process:
    """One scoring process and our end of its pipe."""

    def __init__(self, context: Any) -> None:
        ours, theirs = context.Pipe(duplex=True)
        cpus = os.environ.get(SCORING_CPUS_ENV, "")
        self.process = context.Process(target=_child_main, args=(theirs, cpus), daemon=True)
        self.process.start()
        theirs.close()
        self.connection: Connection = ours

    async def run(self, payload: bytes, pool: _Pool) -> Any:
        """Send one job and wait for its answer, read by a loop callback that also returns this
        process to ``pool``. A caller cancelled mid-job (its deadline passed, it went away)
        kills the process: the work stops where it runs, and the pool starts a replacement."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        fd = self.connection.fileno()

        def on_readable() -> None:
            loop.remove_reader(fd)
            outcome = self._receive(pool)
            if not answer.done():
                if isinstance(outcome, ScoringUnavailable):
                    answer.set_exception(outcome)
                else:
                    answer.set_result(outcome)

        try:
            # The process is idle, blocked reading: this write does not wait on its work.
            self.connection.send_bytes(payload)
        except OSError as exc:
            pool.lost(self)
            raise ScoringUnavailable(f"scoring process is gone: {exc}") from None
        loop.add_reader(fd, on_readable)
        try:
            return await answer
        except asyncio.CancelledError:
            # Cancelling this task cancelled ``answer`` too, unless the answer had come.
            if answer.cancelled():  # still working: stop it
                loop.remove_reader(fd)
                pool.lost(self)
            raise

    def _receive(self, pool: _Pool) -> Any:
        """Read one answer and hand the process back (or drop it if it broke)."""
        try:
            answer = pickle.loads(self.connection.recv_bytes())
        except Exception as exc:  # EOF: the process died (killed, out of memory)
            pool.lost(self)
            return JobLost(f"scoring process failed: {exc!r}")
        pool.release(self)
        if isinstance(answer, _Failed):
            return ScoringUnavailable(f"job failed in the scoring process: {answer.reason}")
        return answer

    def stop(self, *, wait: bool = False) -> None:
        """Close the pipe (the process exits on end-of-file); with ``wait``, join it."""
        self.connection.close()
        if wait:
            self.process.join(5)
        if wait or not self.process.is_alive():
            if self.process.is_alive():
                self.process.kill()
            self.process.join()


class _Failed:
    """What a scoring process answers when a job raised."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _unpin(cpus: str) -> None:
    if cpus and hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})
        except (OSError, ValueError):
            log.warning("scoring process keeps its worker's core", exc_info=True)


def _child_main(connection: Connection, cpus: str) -> None:
    """A scoring process (on the cores ``cpus`` lists, if any): run jobs until the pipe
    closes."""
    # Ctrl-C reaches the whole foreground process group; the server decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _unpin(cpus)
    while True:
        try:
            payload = connection.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            function, args = pickle.loads(payload)
            answer = function(*args)
        except Exception as exc:
            answer = _Failed(repr(exc))
        connection.send_bytes(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
