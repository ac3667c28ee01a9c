"""A model worker process: loads one model, then runs the batches the runtime sends it.

The runtime (:mod:`evald.models.runtime`) and its worker speak over one pipe, one message at a
time: the runtime sends ``("load", kind, path, device, options)`` once, then
``("forward", options, items)`` per batch, and reads each answer (``("ok", value)`` or
``("error", class name, message)``) before it sends the next message.
"""

from __future__ import annotations

import pickle
import signal
import sys
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from evald import errors
from evald.models.base import kind_of
from evald.orphans import die_with_parent

Answer = tuple[str, Any]
"""``("ok", result)`` or ``("error", an evald error)``."""


def error_of(answer: Answer) -> errors.EvalError | None:
    """The error an answer carries, or None for a result."""
    kind, value = answer
    return value if kind == "error" else None


def check_device(device: str) -> None:
    """FailedPrecondition for a CUDA device this machine does not have."""
    if not device.startswith("cuda"):
        return
    try:
        import torch
    except ImportError:
        raise errors.FailedPrecondition(
            f"model device {device!r} needs PyTorch (install evald[models])"
        ) from None
    if not torch.cuda.is_available():
        raise errors.FailedPrecondition(f"model device {device!r}: CUDA is not available here")
    _, _, index = device.partition(":")
    if index and (not index.isdigit() or int(index) >= torch.cuda.device_count()):
        raise errors.FailedPrecondition(
            f"model device {device!r}: this machine has {torch.cuda.device_count()} CUDA devices"
        )


def main(connection: Connection, sys_path: Sequence[str]) -> None:
    """A model worker: load, then serve batches until the pipe closes."""
    # Ctrl-C reaches the whole foreground process group; the server decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    # Kinds are imported by reference: find them where the server does (its PYTHONPATH, the
    # directory it was started from), whenever the shared forkserver was started.
    sys.path.extend(entry for entry in sys_path if entry not in sys.path)
    kind: Any = None
    state: Any = None
    while True:
        try:
            message = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return
        answer: Answer
        try:
            if message[0] == "load":
                _, reference, path, device, options = message
                kind, state = _load(reference, Path(path), device, options)
                answer = ("ok", None)
            else:
                _, options, items = message
                answer = ("ok", _forward(kind, state, items, options))
        except Exception as exc:
            answer = ("error", _sendable(exc, loading=message[0] == "load"))
        try:
            payload = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            failed = errors.EvalError(f"model results cannot be sent: {exc!r}")
            payload = pickle.dumps(("error", failed), protocol=pickle.HIGHEST_PROTOCOL)
        connection.send_bytes(payload)


def _sendable(exc: Exception, *, loading: bool) -> errors.EvalError:
    """``exc`` as an evald error that survives the pipe. A kind's load failure is
    FailedPrecondition (the server is not set up for the model); any other failure of its
    forward pass is an internal error, with the kind's message."""
    if isinstance(exc, errors.EvalError):
        try:
            sent: errors.EvalError = pickle.loads(pickle.dumps(exc))
            return sent
        except Exception:  # an error class with its own constructor: keep its message
            return (errors.FailedPrecondition if loading else errors.EvalError)(exc.message)
    text = f"{type(exc).__name__}: {exc}"
    return errors.FailedPrecondition(text) if loading else errors.EvalError(text)


def _load(reference: str, path: Path, device: str, options: Mapping[str, Any]) -> tuple[Any, Any]:
    check_device(device)
    try:
        kind = kind_of(reference)
    except (ImportError, AttributeError) as exc:
        raise errors.FailedPrecondition(
            f"model kind {reference!r} cannot be loaded: {exc}"
        ) from None
    return kind, kind.load(path, device, options)


def _forward(kind: Any, state: Any, items: list[Any], options: Mapping[str, Any]) -> list[Any]:
    results = list(kind.forward(state, items, options))
    if len(results) != len(items):
        raise errors.EvalError(
            f"model kind {kind.name!r} returned {len(results)} results for {len(items)} items"
        )
    return results
