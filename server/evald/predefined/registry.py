"""Finds every predefined metric in this package, by name."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache

from evald.predefined.base import PredefinedMetric


@cache
def registry() -> dict[str, PredefinedMetric]:
    """Every concrete :class:`PredefinedMetric` in ``evald.predefined``, by name."""
    found: dict[str, PredefinedMetric] = {}
    package = importlib.import_module("evald.predefined")
    for info in pkgutil.walk_packages(package.__path__, prefix="evald.predefined."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, PredefinedMetric)
                and not inspect.isabstract(cls)
                and cls.__module__ == module.__name__
                and "name" in cls.__dict__
            ):
                if cls.name in found:
                    raise RuntimeError(f"two predefined metrics named {cls.name}")
                found[cls.name] = cls()
    return dict(sorted(found.items()))
