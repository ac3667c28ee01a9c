"""Finds the concrete classes a package or module defines: how metrics and judge backends are
registered (a new one is a new module, no list to edit)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any


def concrete_subclasses(package: str, base: type, *, nested: bool = True) -> Iterator[Any]:
    """Every non-abstract subclass of ``base`` defined in ``package`` (a module, or a package
    and its modules, sub-packages too when ``nested``), module by module; re-imported names are
    skipped. (Typed ``Any``: mypy does not let an abstract class stand for ``type[T]``.)"""
    root = importlib.import_module(package)
    modules = [root]
    if hasattr(root, "__path__"):
        walk = pkgutil.walk_packages if nested else pkgutil.iter_modules
        modules += [
            importlib.import_module(info.name) for info in walk(root.__path__, prefix=f"{package}.")
        ]
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, base)
                and not inspect.isabstract(cls)
                and cls.__module__ == module.__name__
            ):
                yield cls
