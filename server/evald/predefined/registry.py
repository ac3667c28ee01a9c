"""Finds every predefined metric in this package, by name."""

from __future__ import annotations

from functools import cache

from evald.discovery import concrete_subclasses
from evald.predefined.base import PredefinedMetric


@cache
def registry() -> dict[str, PredefinedMetric]:
    """Every concrete :class:`PredefinedMetric` in ``evald.predefined``, by name."""
    found: dict[str, PredefinedMetric] = {}
    for cls in concrete_subclasses("evald.predefined", PredefinedMetric):
        if "name" not in cls.__dict__:
            continue  # a shared base that names no metric
        if cls.name in found:
            raise RuntimeError(f"two predefined metrics named {cls.name}")
        found[cls.name] = cls()
    return dict(sorted(found.items()))
