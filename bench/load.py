"""A bounded, multi-process load generator for gRPC and HTTP (loopback only).

Each generator process opens its own connections, keeps ``concurrency`` calls in flight, and
stops after ``seconds`` or ``max_requests`` calls, whichever comes first. Requests are sent as
ready-made bytes (no serialization in the timed loop), taken in turn from the list the process
builds for itself before the start, so every call can carry new text. All processes start
together (a barrier), after a short warm-up that opens their connections.
"""

from __future__ import annotations

import asyncio
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


def run(target: Target, requests: Requests, load: Load) -> Result:
    """Drive ``target`` with ``load``; returns the combined result."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(load.processes + 1)
    queue: Any = context.Queue()
    processes = [
        context.Process(
            target=_process_main, args=(index, target, requests, load, barrier, queue), daemon=True
        )
        for index in range(load.processes)
    ]
    for process in processes:
        process.start()
    try:
        barrier.wait(timeout=120)
        parts = [queue.get(timeout=load.seconds + 120) for _ in processes]
    finally:
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join()
    result = Result()
    windows = []
    for count, errors, seconds, latencies in parts:
        result.requests += count
        result.errors += errors
        result.latencies += latencies
        windows.append((count, seconds))
    # Rate = sum of per-process rates; stated as requests over the mean window.
    rate = sum(count / seconds for count, seconds in windows if seconds)
    result.seconds = result.requests / rate if rate else 0.0
    return result


def _process_main(
    index: int, target: Target, requests: Requests, load: Load, barrier: Any, queue: Any
) -> None:
    bodies = requests(index)
    queue.put(asyncio.run(_drive(target, bodies, load, barrier)))


async def _drive(
    target: Target, bodies: list[bytes], load: Load, barrier: Any
) -> tuple[int, int, float, list[float]]:
    calls, close = await _connect(target, load.connections)
    try:
        offset = load.warmup * len(calls)
        for i in range(offset):  # opens every connection
            await calls[i % len(calls)](bodies[i % len(bodies)])
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait, 120)
        latencies: list[float] = []
        errors = 0
        sent = 0
        start = time.perf_counter()
        deadline = start + load.seconds

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
        return len(latencies), errors, time.perf_counter() - start, latencies
    finally:
        await close()


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
