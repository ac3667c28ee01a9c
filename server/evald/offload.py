"""Work whose cost is not bounded small, run off the event loop where it can be stopped.

:func:`call` runs ``function(*args)`` in a scoring process (:mod:`evald.scoring`): the event
loop keeps serving other calls, and when the caller is cancelled (its deadline passed, it
disconnected) the process is killed, so the work stops where it runs. An :class:`EvalError`
raised there reaches the caller whole (code, message, field violations). Without scoring
processes (``--scoring-processes 0``) the work runs in a thread: off the loop, but it runs to
its end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from google.rpc import code_pb2, error_details_pb2, status_pb2

from evald import scoring
from evald.errors import EvalError, FieldViolation, InvalidArgument, ResourceExhausted, grpc_code

INLINE_BYTES = 16 * 1024
"""Largest serialized instance (or piece of instances) a computed metric scores on the event
loop. A metric's cost grows with its texts (ROUGE-L and BLEU take ~3 ms on 16 KiB, ~30 ms on
100 KiB), and some grow faster than linearly: larger ones are scored with :func:`call`."""


class Relayed(EvalError):
    """An EvalError raised in a scoring process, as its status."""

    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.code = grpc_code(status.code)
        self.status = status

    def to_status(self) -> status_pb2.Status:
        return self.status

    def details(self) -> list[Any]:
        return list(self.status.details)


async def call(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` off the event loop (see the module); its result, or its EvalError
    raised again here. ``function`` and the arguments must be picklable."""
    try:
        kind, value = await scoring.run_job(_relaying, function, args)
    except scoring.JobLost:
        # Not tried again in this process: what killed a scoring process would hurt the server.
        raise ResourceExhausted(
            "the evaluation ended without an answer: its process ran out of memory or was killed"
        ) from None
    except scoring.ScoringUnavailable:
        kind, value = await asyncio.to_thread(_relaying, function, args)
    if kind == "error":
        raise _rebuilt(status_pb2.Status.FromString(value))
    return value


def _rebuilt(status: status_pb2.Status) -> EvalError:
    """The error of ``status``: an InvalidArgument again when it was one (callers match on
    the class and read its violations), else :class:`Relayed`."""
    bad = error_details_pb2.BadRequest()
    if status.code == code_pb2.INVALID_ARGUMENT and any(d.Unpack(bad) for d in status.details):
        violations = [FieldViolation(v.field, v.description) for v in bad.field_violations]
        if violations:
            error = InvalidArgument.of(violations)
            error.message = status.message
            error.args = (status.message,)
            return error
    return Relayed(status)


def _relaying(function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "ok", function(*args)
    except EvalError as exc:
        return "error", exc.to_status().SerializeToString()
