"""A bounded, multi-process load generator for gRPC and HTTP (loopback only).

Each generator process opens its own connections, keeps ``concurrency`` calls in flight, and
stops after ``seconds`` or ``max_requests`` calls, whichever comes first. Requests are sent as
ready-made bytes (no serialization in the timed loop), taken in turn from the list the process
builds for itself before the start, so every call can carry new text. The processes open their
connections and warm up first, then measure together; a :class:`Crew` keeps them for many
rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import multiprocessing
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Requests = Callable[[int], list[bytes]]
"""Builds one process's request bodies, given the process index (a picklable module function)."""


@dataclass(frozen=True)
class Target:
    """Where the load goes: ``grpc`` (a method path) or ``http`` (a POST URL path)."""

    kind: str
    host: str
    port: int
    path: str
    """gRPC method (``/pkg.Service/Method``) or HTTP path."""

    def __post_init__(self) -> None:
        # Loopback only: this generator must never be pointed at someone else's server.
        if not ipaddress.ip_address(self.host).is_loopback:
            raise ValueError(f"load goes to loopback addresses only, not {self.host}")
        if self.kind not in ("grpc", "http"):
            raise ValueError(f"unknown target kind {self.kind!r}")


@dataclass(frozen=True)
class Load:
    """How much load: processes x connections, calls in flight, and its bounds."""

    processes: int = 2
    connections: int = 4
    """Connections per process (several, so SO_REUSEPORT spreads them over server workers)."""
    concurrency: int = 16
    """Calls in flight per process."""
    seconds: float = 3.0
    max_requests: int = 200_000
    """Per process."""
    warmup: int = 8
    """Untimed calls per connection before the start."""


@dataclass
class Result:
    """What the processes measured together."""

    requests: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    """Seconds per successful call."""
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds used meanwhile, by whom (e.g. ``server``, ``load``), where measured."""
    process_cpu: float = 0.0
    """CPU seconds the measuring processes used in their timed windows (``time.process_time``
    in each process: its own work only, not waiting for the parent's next round)."""

    @property
    def per_second(self) -> float:
        """Completed calls per second (each process over its own timed window, summed)."""
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        """Latency percentile ``p`` (0-100) in milliseconds."""
        if not self.latencies:
            return float("nan")
        if len(self.latencies) == 1:
            return self.latencies[0] * 1000
        cuts = statistics.quantiles(self.latencies, n=100, method="inclusive")
        return cuts[min(98, max(0, round(p) - 1))] * 1000


Part = tuple[int, int, float, list[float], float]
"""What one process measured: successful calls, failed calls, its window (s), latencies (s),
and the CPU seconds it used in that window (``time.process_time``)."""


class Crew:
    """Processes started once and measured many times: each builds its job (for load: opens its
    connections, builds its request bodies, warms up) before the first measurement, so short
    alternating rounds measure the work, not process start-up.

    ``job(index)`` (a picklable module-level callable) runs in process ``index`` and returns a
    callable ``measure(seconds) -> Part``.
    """

    def __init__(self, job: Callable[[int], Callable[[float], Part]], processes: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipes: list[Any] = []
        self._processes: list[Any] = []
        for index in range(processes):
            ours, theirs = context.Pipe()
            process = context.Process(target=_crew_main, args=(job, index, theirs), daemon=True)
            process.start()
            theirs.close()
            self._pipes.append(ours)
            self._processes.append(process)
        self._ready = False

    @property
    def pids(self) -> list[int]:
        """The crew's process ids."""
        return [process.pid for process in self._processes]

    def wait_ready(self) -> None:
        """Wait until every process has built its job (raises if one failed)."""
        if self._ready:
            return
        for pipe in self._pipes:
            if not pipe.poll(180):
                raise TimeoutError("a measuring process did not get ready")
            ready = pipe.recv()
            if ready != "ready":
                raise RuntimeError(f"a measuring process failed to start: {ready}")
        self._ready = True

    def measure(self, seconds: float) -> Result:
        """All processes measure at once for ``seconds``; their parts combined."""
        self.wait_ready()
        for pipe in self._pipes:  # back to back: the processes start within microseconds
            pipe.send(seconds)
        parts = []
        for pipe in self._pipes:
            if not pipe.poll(seconds + 180):
                raise TimeoutError("a measuring process did not answer")
            part = pipe.recv()
            if isinstance(part, str):
                raise RuntimeError(f"a measuring process failed: {part}")
            parts.append(part)
        return _combine(parts)

    def close(self) -> None:
        """Stop the processes."""
        for pipe in self._pipes:
            with contextlib.suppress(OSError):
                pipe.send(None)
        for process in self._processes:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join()

    def __enter__(self) -> Crew:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _combine(parts: list[Part]) -> Result:
    """One result from the processes' parts: calls summed, rate = sum of per-process rates."""
    result = Result()
    rate = 0.0
    for count, errors, seconds, latencies, used in parts:
        result.requests += count
        result.errors += errors
        result.latencies += latencies
        result.process_cpu += used
        rate += count / seconds if seconds else 0.0
    # Stated as requests over the mean window.
    result.seconds = result.requests / rate if rate else 0.0
    return result


def _crew_main(job: Callable[[int], Callable[[float], Part]], index: int, pipe: Any) -> None:
    try:
        measure = job(index)
    except Exception as exc:  # reported to the parent, which raises it
        pipe.send(f"{type(exc).__name__}: {exc}")
        return
    pipe.send("ready")
    while (seconds := pipe.recv()) is not None:
        try:
            pipe.send(measure(seconds))
        except Exception as exc:
            pipe.send(f"{type(exc).__name__}: {exc}")
    close = getattr(measure, "close", None)
    if close is not None:
        close()


@dataclass(frozen=True)
class LoadJob:
    """The load of one process: ``target`` driven with its ``requests`` under ``load``."""

    target: Target
    requests: Requests
    load: Load

    def __call__(self, index: int) -> Callable[[float], Part]:
        return _LoadRunner(self, index)


class _LoadRunner:
    """One process's connections and bodies, warmed up; called once per round."""

    def __init__(self, job: LoadJob, index: int) -> None:
        self.load = job.load
        self.loop = asyncio.new_event_loop()
        self.bodies = job.requests(index)
        self.calls, self._close = self.loop.run_until_complete(
            _connect(job.target, job.load.connections)
        )
        self.offset = job.load.warmup * len(self.calls)
        for i in range(self.offset):  # opens every connection
            call = self.calls[i % len(self.calls)]
            self.loop.run_until_complete(call(self.bodies[i % len(self.bodies)]))

    def __call__(self, seconds: float) -> Part:
        part = self.loop.run_until_complete(
            _timed(self.calls, self.bodies, self.offset, self.load, seconds)
        )
        self.offset += part[0] + part[1]  # every round sends texts the last one did not
        return part

    def close(self) -> None:
        """Close the connections and the loop."""
        self.loop.run_until_complete(self._close())
        self.loop.close()


def run(target: Target, requests: Requests, load: Load) -> Result:
    """Drive ``target`` with ``load`` once (processes started for this run only)."""
    with Crew(LoadJob(target, requests, load), load.processes) as crew:
        return crew.measure(load.seconds)


async def _timed(
    calls: list[Any], bodies: list[bytes], offset: int, load: Load, seconds: float
) -> Part:
    latencies: list[float] = []
    errors = 0
    sent = 0
    used = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds

    async def worker(slot: int) -> None:
        nonlocal sent, errors
        call = calls[slot % len(calls)]
        while sent < load.max_requests and time.perf_counter() < deadline:
            body = bodies[(offset + sent) % len(bodies)]
            sent += 1
            began = time.perf_counter()
            try:
                await call(body)
            except Exception:
                errors += 1
                continue
            latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(worker(slot) for slot in range(load.concurrency)))
    elapsed = time.perf_counter() - start
    return len(latencies), errors, elapsed, latencies, time.process_time() - used


async def _connect(target: Target, connections: int) -> tuple[list[Any], Any]:
    """One callable per connection (``await call(body)``) and an async closer."""
    if target.kind == "grpc":
        import grpc

        channels = [
            grpc.aio.insecure_channel(
                f"{target.host}:{target.port}",
                # Own subchannel pool: each channel gets its own TCP connection.
                options=[("grpc.use_local_subchannel_pool", 1), ("grpc.enable_retries", 0)],
            )
            for _ in range(connections)
        ]
        calls = [channel.unary_unary(target.path, None, None) for channel in channels]

        async def close_channels() -> None:
            for channel in channels:
                await channel.close(None)

        return calls, close_channels

    import aiohttp

    url = f"http://{target.host}:{target.port}{target.path}"
    sessions = [
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) for _ in range(connections)
    ]
    headers = {"Content-Type": "application/json"}

    def poster(session: aiohttp.ClientSession) -> Any:
        async def post(body: bytes) -> bytes:
            async with session.post(url, data=body, headers=headers) as response:
                data = await response.read()
                if response.status != 200:
                    raise RuntimeError(f"HTTP {response.status}: {data[:200]!r}")
                return data

        return post

    async def close_sessions() -> None:
        for session in sessions:
            await session.close()

    return [poster(session) for session in sessions], close_sessions
