"""What a model-backed metric asks of the model runtime.

A metric names a :class:`ModelKind` (how one family of models loads and runs a batch) by its
import path, the model (a name under the models directory, or a path), and options; it
awaits :meth:`Models.run` with its items and gets one result per item. The runtime finds the
model offline (a missing one is FAILED_PRECONDITION naming it and where evald looked), loads it
once, batches concurrent calls, and never runs inference on the event loop.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class ModelKind(Protocol):
    """One family of models (BERTScore's encoders, Detoxify, ...): runs in a model worker."""

    name: str
    """Short name for errors, logs and ``evald models list`` (``bertscore``)."""

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> Any:
        """The loaded model of ``path`` on ``device`` (``cpu``, ``cuda``, ``cuda:1``); raises
        ``evald.errors.FailedPrecondition`` for files it cannot use."""
        ...  # pragma: no cover

    def forward(self, state: Any, items: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
        """One result per item, for a batch (picklable in and out)."""
        ...  # pragma: no cover


def kind_of(reference: str) -> ModelKind:
    """The kind at ``module:Class`` (instantiated with no arguments)."""
    module, _, name = reference.partition(":")
    kind: ModelKind = getattr(importlib.import_module(module), name)()
    return kind


@dataclass(frozen=True)
class ModelRequest:
    """Which model to run: the kind (``module:Class``), the model and its load options."""

    kind: str
    model: str
    """A name under the models directory (``roberta-large``, ``unitary/unbiased-toxic-roberta``)
    or an absolute path."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Options that change the loaded state (a layer to cut the encoder at, ...): part of the
    loaded model's identity."""


class Models(Protocol):
    """The model runtime of a server (or of the command line)."""

    async def run(
        self,
        request: ModelRequest,
        items: Sequence[Any],
        *,
        options: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> list[Any]:
        """One result per item; ``options`` reach :meth:`ModelKind.forward` (items with
        different forward options are never batched together); ``deadline`` is a
        ``time.monotonic()`` value the call gives up at (DEADLINE_EXCEEDED), also while queued."""
        ...  # pragma: no cover

    def resolve(self, model: str) -> Path:
        """The directory of ``model``; FailedPrecondition naming the model and where evald
        looked when it is not there."""
        ...  # pragma: no cover
