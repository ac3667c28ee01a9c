"""Every answered call of every RPC, recorded once: its request log line
(:func:`evald.logs.request_lines`) and its Prometheus figures
(:func:`evald.ops.telemetry.record_requests`).

Inside a running event loop a call only appends its record; the records are written and counted
together at most :data:`FLUSH_SECONDS` later: one write and one counter update per label set for
every call of that interval, as a buffered access log does (nginx's ``access_log ... flush=``).
Writing once per event-loop turn instead cost a single-instance call ~35 us of server CPU under
load (a turn rarely holds more than one call there: one write system call and one scheduled
callback per call). Outside a loop (threads, scripts) a record is handled at once. A metrics
scrape, a server's stop and the process's exit handle pending records first, so none of them
misses a call.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time

from evald import logs
from evald.ops import telemetry

FLUSH_SECONDS = 0.05
"""Longest a record waits in a running event loop before it is written and counted."""
MAX_PENDING = 4096
"""Records held at most: one more is written at once, with those before it."""

_pending: list[logs.RequestRecord] = []
_lock = threading.Lock()
"""Held while taking records out of ``_pending``: a scrape thread may flush concurrently."""
_scheduled: asyncio.AbstractEventLoop | None = None
"""The loop a flush is scheduled on (None: none is)."""


def record(method: str, metric: str, instances: int, code: str, seconds: float) -> None:
    """Record one answered call: ``method`` (gRPC path), ``metric`` (the request's
    ``metric_inputs`` member), its instance count, status code name and duration."""
    global _scheduled
    _pending.append((time.time(), method, metric, instances, code, seconds))
    if len(_pending) >= MAX_PENDING:
        flush()
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        flush()
        return
    if _scheduled is not loop:  # (a loop that closed with a flush pending counts as none)
        _scheduled = loop
        loop.call_later(FLUSH_SECONDS, _flush_scheduled)


def _flush_scheduled() -> None:
    global _scheduled
    _scheduled = None
    flush()


def flush() -> None:
    """Write and count every pending record, in order."""
    with _lock:  # also while writing: two flushes never interleave their lines
        if not _pending:
            return
        records = _pending.copy()
        del _pending[: len(records)]  # keeps a record another thread added meanwhile
        logs.request_lines(records)
        telemetry.record_requests(records)


telemetry.before_scrape(flush)
atexit.register(flush)
