"""Model kinds for the runtime's tests, imported by reference in model worker processes."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evald.errors import FailedPrecondition

ECHO = "tests.unit.models.kinds:EchoKind"
BROKEN = "tests.unit.models.kinds:BrokenKind"


class EchoKind:
    """Answers each item as ``[item, batch size, loaded path, worker pid]``. Items may ask for
    a slow pass (``{"sleep": seconds}``) or the worker's death (``"die"``)."""

    name = "echo"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> Any:
        return {"path": str(path), "device": device, **options}

    def forward(self, state: Any, items: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
        for item in items:
            if item == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            if isinstance(item, dict) and "sleep" in item:
                time.sleep(item["sleep"])
        suffix = options.get("suffix", "")
        return [[item, len(items), state["path"], os.getpid(), suffix] for item in items]


class BrokenKind:
    """A kind whose model files cannot be used."""

    name = "broken"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> Any:
        raise FailedPrecondition(f"broken: no weights in {path}")

    def forward(self, state: Any, items: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
        raise AssertionError("never loaded")
