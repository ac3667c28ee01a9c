"""A model runtime without worker processes: loads each model once in this process and runs
each call's items as one batch in a thread. For tests of a kind and for tools; the server
uses :mod:`evald.models.runtime`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evald.errors import FailedPrecondition
from evald.models.base import ModelRequest, kind_of


class InlineModels:
    """:class:`evald.models.base.Models` in this process."""

    def __init__(self, models_dir: Path | None, device: str = "cpu") -> None:
        self.models_dir = models_dir
        self.device = device
        self._loaded: dict[tuple[str, str, tuple[tuple[str, Any], ...]], Any] = {}
        self._lock = threading.Lock()
        self.forward_passes = 0

    def resolve(self, model: str) -> Path:
        path = Path(model)
        candidates = [path] if path.is_absolute() else []
        if self.models_dir is not None and not path.is_absolute():
            candidates.append(self.models_dir / model)
        for candidate in candidates:
            if candidate.is_dir():
                return candidate
        where = ", ".join(str(c) for c in candidates) or "nowhere (no models directory is set)"
        raise FailedPrecondition(f"model {model!r} not found: looked in {where}")

    def _run(
        self, request: ModelRequest, items: Sequence[Any], options: Mapping[str, Any]
    ) -> list[Any]:
        kind = kind_of(request.kind)
        key = (request.kind, request.model, tuple(sorted(request.options.items())))
        with self._lock:
            state = self._loaded.get(key)
            if state is None:
                state = kind.load(self.resolve(request.model), self.device, request.options)
                self._loaded[key] = state
            self.forward_passes += 1
            return kind.forward(state, list(items), options)

    async def run(
        self,
        request: ModelRequest,
        items: Sequence[Any],
        *,
        options: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> list[Any]:
        return await asyncio.to_thread(self._run, request, items, dict(options or {}))
