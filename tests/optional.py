"""Optional packages (the ``models`` extra's torch, transformers, ...) in test modules: the
module is skipped when one is missing, and a package is imported at its first use, not when
the module is collected. Every test process collects every module, and torch with
transformers alone takes seconds to import: a process that runs none of a module's tests
should not pay for it."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pytest


def needs(*packages: str) -> pytest.MarkDecorator:
    """A ``pytestmark`` skipping the module unless every one of ``packages`` is installed
    (found without importing it)."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)}")


class Lazy:
    """A package imported at the first attribute read, e.g. ``torch = Lazy("torch")``."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)
