"""Structured logging: one JSON object per line."""

from __future__ import annotations

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
        line = {
            "ts": round(time.time(), 3),
            "level": "info",
            "logger": REQUEST_LOGGER.name,
            "msg": "request",
            "method": method,
            "metric": metric,
            "instances": instances,
            "code": code,
            "ms": round(ms, 3),
        }
        _direct.stream.write(json.dumps(line, ensure_ascii=False) + "\n")
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
