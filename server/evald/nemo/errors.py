"""NeMo Evaluator's error answers: FastAPI's shapes, which its official client reads.

- a body that does not validate: 422 ``{"detail": [{"loc": [...], "msg", "type"}]}``, ``loc``
  the JSON path from ``"body"`` down to the offending field;
- anything else: ``{"detail": "<message>"}`` with the HTTP status of the gRPC code, as the
  Vertex routes map them (404 NOT_FOUND, 409 ALREADY_EXISTS, ...).

Inside evald a bad field is an ``InvalidArgument`` whose field is a dotted path
(``config.tasks.qa.metrics.bleu.params.references[0]``; a key that is not a plain name is
quoted, ``tasks['my.task']``): :func:`loc_of` turns it back into a ``loc`` list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from evald.errors import EvalError, FieldViolation, InvalidArgument
from evald.gateway.errors import HTTP_STATUS

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_PART = re.compile(r"\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]|\.?([^.\[]+)")


def path(*parts: str | int) -> str:
    """A dotted field path from keys and indices: ``path("config", "tasks", "my.task")`` is
    ``config.tasks['my.task']``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN.match(part):
            out += f".{part}" if out else part
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out += f"['{escaped}']"
    return out


def loc_of(field: str) -> list[str | int]:
    """A dotted field path as a ``loc`` list starting at ``body``."""
    loc: list[str | int] = ["body"]
    for quoted, index, plain in _PART.findall(field):
        if index:
            loc.append(int(index))
        elif plain:
            loc.append(plain)
        else:
            loc.append(re.sub(r"\\(.)", r"\1", quoted))
    return loc


def invalid(errors: Sequence[tuple[Sequence[str | int], str]]) -> InvalidArgument:
    """One InvalidArgument for ``(loc without "body", message)`` pairs."""
    return InvalidArgument.of([FieldViolation(path(*loc), msg) for loc, msg in errors])


def body(detail: Any) -> bytes:
    """A JSON ``{"detail": ...}`` body."""
    return json.dumps({"detail": detail}, ensure_ascii=False).encode()


def answer(error: EvalError) -> tuple[int, bytes]:
    """The HTTP status and body of an evald error: a bad argument is a 422 naming its fields,
    as FastAPI answers; the rest ``{"detail": message}``."""
    if isinstance(error, InvalidArgument):
        detail = [
            {"loc": loc_of(v.field), "msg": v.description, "type": "value_error"}
            for v in error.violations
        ]
        return 422, body(detail)
    return HTTP_STATUS.get(error.code, 500), body(error.message)
