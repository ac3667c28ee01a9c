"""Structured logging: one JSON object per line."""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import logging
import sys
import time
from typing import Any, TextIO

REQUEST_LOGGER = logging.getLogger("evald.request")


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line; ``extra={"fields": {...}}`` adds keys."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


_REQUEST_LINE_HEAD = '"level": "info", "logger": "evald.request", "msg": "request"'
_pending: list[str] = []
"""Request lines written at the end of the current event-loop iteration, in one write."""

_direct: logging.StreamHandler[TextIO] | None = None
"""The handler whose stream :func:`request_line` writes to itself (see
:func:`write_request_lines_directly`)."""


def configure(level: str = "INFO") -> None:
    """Send the process's logs to stderr as JSON lines: evald's at ``level``, everyone else's
    (grpc, asyncio) at WARNING and above, so no plain-text line slips into the stream."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    evald = logging.getLogger("evald")
    evald.handlers.clear()
    evald.setLevel(level.upper())
    evald.propagate = True


def write_request_lines_directly() -> None:
    """In a serving process configured by :func:`configure`: write each request line straight
    to the JSON handler's stream, the very line it would format, without building and handling
    a LogRecord (~30 us of every call). Tests and embedders keep ordinary log records."""
    global _direct
    handlers = logging.getLogger().handlers
    if len(handlers) == 1 and isinstance(handlers[0].formatter, JsonFormatter):
        handler = handlers[0]
        if isinstance(handler, logging.StreamHandler):
            _direct = handler


def request_line(method: str, metric: str, instances: int, code: str, ms: float) -> None:
    """The one log line written per request. It names the call, never its contents: requests
    carry user data (prompts, answers) that must not end up in logs."""
    if _direct is not None and REQUEST_LOGGER.isEnabledFor(logging.INFO):
        # Exactly json.dumps(line) of the dict the formatter would build, keys in that order;
        # the constant parts are encoded once.
        line = (
            f'{{"ts": {round(time.time(), 3)!r}, {_REQUEST_LINE_HEAD}, '
            f'{_encoded_call(method, metric)}, "instances": {int(instances)}, '
            f'"code": {_encoded(code)}, "ms": {round(ms, 3)!r}}}\n'
        )
        _queue_line(line)
        return
    REQUEST_LOGGER.info(
        "request",
        extra={
            "fields": {
                "method": method,
                "metric": metric,
                "instances": instances,
                "code": code,
                "ms": round(ms, 3),
            }
        },
    )


@functools.lru_cache(maxsize=1024)
def _encoded_call(method: str, metric: str) -> str:
    return f'"method": {_encoded(method)}, "metric": {_encoded(metric)}'


@functools.lru_cache(maxsize=1024)
def _encoded(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _queue_line(line: str) -> None:
    """Write ``line`` now, or, inside a running event loop, with the other lines of this loop
    iteration in one write (a write to stderr is a system call: once per line it cost more
    than formatting the line)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _write([line])
        return
    if not _pending:
        loop.call_soon(flush_request_lines)
    _pending.append(line)


def flush_request_lines() -> None:
    """Write the request lines not written yet (also run at exit)."""
    if _pending:
        lines = _pending.copy()
        del _pending[: len(lines)]  # keeps a line another thread added meanwhile
        _write(lines)


def _write(lines: list[str]) -> None:
    handler = _direct
    if handler is None:
        return
    try:
        handler.stream.write("".join(lines))
        handler.stream.flush()
    except (OSError, ValueError):  # the stream is closed or gone (a dead log pipe)
        pass


atexit.register(flush_request_lines)
