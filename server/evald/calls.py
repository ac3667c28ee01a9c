"""Every answered EvaluateInstances call, recorded once: its request log line
(:func:`evald.logs.request_lines`) and its Prometheus figures
(:func:`evald.ops.telemetry.record_requests`).

Inside a running event loop a call only appends its record; the records of one loop turn are
written and counted together, once the turn's callbacks have run: one write and one counter
update per label set instead of one per call (a single-instance call's handler: ~21.5 -> ~16.7
us in-process, with the other trims of that change). Outside a loop (threads, scripts) a record
is handled at once. A metrics scrape and the process's exit handle pending records first, so
neither misses a call.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time

from evald import logs
from evald.ops import telemetry

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
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        flush()
        return
    if _scheduled is not loop:  # (a loop that closed with a flush pending counts as none)
        _scheduled = loop
        loop.call_soon(_flush_turn)


def _flush_turn() -> None:
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
