"""Structured logging: one JSON object per line."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

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


def request_line(method: str, metric: str, instances: int, code: str, ms: float) -> None:
    """The one log line written per request. It names the call, never its contents: requests
    carry user data (prompts, answers) that must not end up in logs."""
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
