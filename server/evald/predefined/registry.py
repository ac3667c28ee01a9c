"""Finds every predefined metric in this package, by name."""

from __future__ import annotations

from functools import cache

from evald.discovery import concrete_subclasses
from evald.predefined.base import PredefinedMetric


@cache
def registry() -> dict[str, PredefinedMetric]:
    """Every concrete :class:`PredefinedMetric` in ``evald.predefined``, by name and by each of
    its aliases."""
    found: dict[str, PredefinedMetric] = {}
    for cls in concrete_subclasses("evald.predefined", PredefinedMetric):
        if "name" not in cls.__dict__:
            continue  # a shared base that names no metric
        for name in (cls.name, *cls.aliases):
            if name in found:
                raise RuntimeError(f"two predefined metrics named {name}")
            # An alias gets a subclass of its own name, so messages name what was asked for.
            named = cls if name == cls.name else type(cls.__name__, (cls,), {"name": name})
            found[name] = named()
    return dict(sorted(found.items()))
