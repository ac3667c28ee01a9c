"""Structured logging: one JSON object per line."""

from __future__ import annotations

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


class AcceptErrorLimit(logging.Filter):
    """Lets one "socket.accept() out of system resource" line through per ``interval`` seconds.

    While a process is out of file descriptors, asyncio logs (with a traceback) every accept()
    that fails, once per queued connection: a flood of connections would flood the log as
    well, and the log is what an operator reads to find out. The line that passes says how
    many were left out since the last one.
    """

    PREFIX = "socket.accept() out of system resource"

    def __init__(self, interval: float = 10.0, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self._clock = clock
        self._last: float | None = None
        self._dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(self.PREFIX):
            return True
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            self._dropped += 1
            return False
        if self._dropped:
            record.msg = f"{record.msg}\n({self._dropped} more since the last such line)"
        self._last, self._dropped = now, 0
        return True


_ACCEPT_ERRORS = AcceptErrorLimit()
"""One per process: asyncio's logger is process-wide."""

_REQUEST_LINE_HEAD = '"level": "info", "logger": "evald.request", "msg": "request"'
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
    logging.getLogger("asyncio").addFilter(_ACCEPT_ERRORS)  # once: the same object
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


RequestRecord = tuple[float, str, str, int, str, float]
"""One answered call: (unix time, method, metric, instances, status code name, seconds)."""


def request_line(method: str, metric: str, instances: int, code: str, ms: float) -> None:
    """The one log line written per request, written now. It names the call, never its
    contents: requests carry user data (prompts, answers) that must not end up in logs.
    (RPCs go through :mod:`evald.ops.calls`, which writes theirs in batches.)"""
    request_lines([(time.time(), method, metric, instances, code, ms / 1000)])


def request_lines(records: list[RequestRecord]) -> None:
    """The request lines of ``records``, in order (one write when writing directly)."""
    if not REQUEST_LOGGER.isEnabledFor(logging.INFO):
        return
    handler = _direct
    if handler is not None:
        # Exactly json.dumps(line) of the dict the formatter would build, keys in that order;
        # the constant parts are encoded once.
        text = "".join(
            f'{{"ts": {round(ts, 3)!r}, {_REQUEST_LINE_HEAD}, '
            f'{_encoded_call(method, metric)}, "instances": {int(instances)}, '
            f'"code": {_encoded(code)}, "ms": {round(seconds * 1000, 3)!r}}}\n'
            for ts, method, metric, instances, code, seconds in records
        )
        try:
            handler.stream.write(text)
            handler.stream.flush()
        except (OSError, ValueError):  # the stream is closed or gone (a dead log pipe)
            pass
        return
    for _, method, metric, instances, code, seconds in records:
        REQUEST_LOGGER.info(
            "request",
            extra={
                "fields": {
                    "method": method,
                    "metric": metric,
                    "instances": instances,
                    "code": code,
                    "ms": round(seconds * 1000, 3),
                }
            },
        )


@functools.lru_cache(maxsize=1024)
def _encoded_call(method: str, metric: str) -> str:
    return f'"method": {_encoded(method)}, "metric": {_encoded(metric)}'


@functools.lru_cache(maxsize=1024)
def _encoded(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
