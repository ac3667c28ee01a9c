"""``evald serve --workers N``: N server processes sharing one port (SO_REUSEPORT).

One Python process serves gRPC on one core at a time (the interpreter lock), and gRPC costs
~150-230 us of server CPU per call, so small calls scale only with processes. :func:`supervise`
serves nothing itself: it starts N workers (``python -m evald.workers``, each a whole
``evald serve`` with ``reuse_port`` on, pinned to its own core unless ``pin_workers`` is off),
waits until each listens, forwards SIGTERM/SIGINT to them (each then drains gracefully; a
second signal cancels in-flight calls, as in a single process) and exits when they have all
stopped: 0 after a signal, 1 if a worker failed to start or died on its own (the others are
then stopped too, so a process manager sees the failure and can restart the whole service).

The kernel spreads connections (not calls) over the workers, so a client holding one channel
talks to one worker; many clients, or a client with several channels, use them all.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evald import logs
from evald.config import Settings
from evald.scoring import SCORING_CPUS_ENV, available_cores, own_forkserver

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0
"""Seconds a worker may take to listen before the supervisor gives up."""
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def worker_count(settings: Settings) -> int:
    """How many workers ``settings`` asks for (``workers=0``: one per available core)."""
    return settings.workers or available_cores()


def worker_cores(count: int, pin: bool) -> list[int | None]:
    """The core each worker is pinned to (round robin over the available ones), or None each."""
    if not pin or not hasattr(os, "sched_getaffinity"):
        return [None] * count
    cores = sorted(os.sched_getaffinity(0))
    return [cores[i % len(cores)] for i in range(count)]


@dataclasses.dataclass
class _Worker:
    index: int
    process: subprocess.Popen[bytes]
    ready_fd: int
    port: int | None = None
    http_port: int | None = None


def supervise(settings: Settings) -> int:
    """Run ``worker_count(settings)`` workers until signalled; returns the exit status."""
    logs.configure(settings.log_level)
    count = worker_count(settings)
    cores = worker_cores(count, settings.pin_workers)
    shared = dataclasses.replace(settings, workers=1, reuse_port=True)
    workers: list[_Worker] = []
    received: list[int] = []

    def forward(signum: int, frame: Any) -> None:
        received.append(signum)
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in STOP_SIGNALS}
    try:
        # The first worker resolves port 0 (and HTTP port 0); the others then share its ports.
        first = _start(0, shared, cores[0])
        workers.append(first)
        if not _wait_ready(first) or received:
            return _stop_all(workers, failed=not received)
        assert first.port is not None
        shared = dataclasses.replace(shared, port=first.port, http_port=first.http_port)
        workers += [_start(i, shared, cores[i]) for i in range(1, count)]
        if not all([_wait_ready(worker) for worker in workers[1:]]):
            return _stop_all(workers, failed=True)
        log.info(
            "workers serving",
            extra={
                "fields": {
                    "workers": count,
                    "pids": [worker.process.pid for worker in workers],
                    "port": first.port,
                    "cores": cores,
                }
            },
        )
        return _run(workers, received)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


DATABASE_URL_ENV = "EVALD_DATABASE_URL"


def _start(index: int, settings: Settings, core: int | None) -> _Worker:
    read_fd, write_fd = os.pipe()
    payload = json.dumps(_to_json(settings))
    command = [sys.executable, "-m", "evald.workers", str(index), str(write_fd), str(core), payload]
    env = None
    if settings.database_url is not None:  # may hold a password: never on a command line
        env = {**os.environ, DATABASE_URL_ENV: settings.database_url}
    process = subprocess.Popen(
        command,
        env=env,
        pass_fds=(write_fd,),
        stdin=subprocess.PIPE,  # the worker stops when this closes: when the supervisor dies
        start_new_session=True,  # Ctrl-C reaches the supervisor only, which forwards it once
    )
    os.close(write_fd)
    return _Worker(index, process, read_fd)


def _wait_ready(worker: _Worker, timeout: float = START_TIMEOUT) -> bool:
    """Wait for the worker's ready line (its ports); False if it exited or timed out first."""
    deadline = time.monotonic() + timeout
    data = b""
    try:
        while time.monotonic() < deadline:
            try:
                readable, _, _ = select.select([worker.ready_fd], [], [], 0.2)
            except InterruptedError:
                continue
            if not readable:
                continue
            chunk = os.read(worker.ready_fd, 4096)
            if not chunk:
                break  # the worker closed the pipe without a ready line: it failed
            data += chunk
            if data.endswith(b"\n"):
                ports = json.loads(data)
                worker.port, worker.http_port = ports["port"], ports["http_port"]
                return True
    finally:
        os.close(worker.ready_fd)
    code = worker.process.poll()
    print(
        f"evald serve: worker {worker.index} failed to start"
        + (f" (exit status {code})" if code is not None else " in time"),
        file=sys.stderr,
    )
    return False


def _run(workers: list[_Worker], received: list[int]) -> int:
    """Wait until every worker has exited; if one exits unasked, stop the others."""
    failed = False
    while any(worker.process.poll() is None for worker in workers):
        for worker in workers:
            code = worker.process.poll()
            if code is not None and not received and not failed:
                failed = True
                log.error(
                    "worker exited unexpectedly; stopping the others",
                    extra={"fields": {"worker": worker.index, "status": code}},
                )
                _signal_all(workers, signal.SIGTERM)
        time.sleep(0.05)
    statuses = [worker.process.returncode for worker in workers]
    log.info("workers stopped", extra={"fields": {"statuses": statuses}})
    return 1 if failed or any(statuses) else 0


def _signal_all(workers: Sequence[_Worker], signum: int) -> None:
    for worker in workers:
        if worker.process.poll() is None:
            worker.process.send_signal(signum)


def _stop_all(workers: list[_Worker], *, failed: bool) -> int:
    """Stop the started workers (gracefully, then for good) and return the exit status."""
    _signal_all(workers, signal.SIGTERM)
    for worker in workers:
        try:
            worker.process.wait(START_TIMEOUT)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait()
    return 1 if failed else 0


def _to_json(settings: Settings) -> dict[str, Any]:
    return {
        name: str(value) if isinstance(value, Path) else value
        for name, value in dataclasses.asdict(settings).items()
        if name != "database_url"  # passed in the environment (see _start)
    }


def _from_json(data: dict[str, Any]) -> Settings:
    paths = {f.name for f in dataclasses.fields(Settings) if "Path" in str(f.type)}
    values: dict[str, Any] = {
        name: Path(v) if name in paths and v is not None else v for name, v in data.items()
    }
    values["database_url"] = os.environ.get(DATABASE_URL_ENV)
    return Settings(**values)


def _worker_main(argv: Sequence[str]) -> int:
    """One worker: pin to its core, serve, and report the ports on the ready pipe."""
    # Only in a worker: the supervisor serves nothing, so it never loads the server's parts.
    from evald.server import RunningServer, fast_log_records, serve

    index, ready_fd, core, payload = int(argv[0]), int(argv[1]), argv[2], argv[3]
    if core != "None":
        # Scoring processes may run on any of the supervisor's cores (see evald.scoring).
        os.environ[SCORING_CPUS_ENV] = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        os.sched_setaffinity(0, {int(core)})
    settings = _from_json(json.loads(payload))
    logs.configure(settings.log_level)
    fast_log_records()

    def started(running: RunningServer) -> None:
        http_port = running.http.port if running.http is not None else None
        line = json.dumps({"port": running.port, "http_port": http_port}) + "\n"
        os.write(ready_fd, line.encode())
        os.close(ready_fd)
        # Stop gracefully once the supervisor is gone (its end of our stdin then closes).
        loop = asyncio.get_running_loop()
        loop.add_reader(sys.stdin.fileno(), _stop_if_orphaned, loop)

    own_forkserver()  # while this process has one thread
    try:
        asyncio.run(serve(settings, on_started=started))
    except OSError as exc:
        print(f"evald serve: worker {index}: {exc}", file=sys.stderr)
        return 1
    return 0


def _stop_if_orphaned(loop: asyncio.AbstractEventLoop) -> None:
    if not os.read(sys.stdin.fileno(), 4096):
        loop.remove_reader(sys.stdin.fileno())
        os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    sys.exit(_worker_main(sys.argv[1:]))
