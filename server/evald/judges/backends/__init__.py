"""Judge backends: one module each, found by discovery.

A backend is a concrete :class:`JudgeBackend` subclass: its ``name`` (the ``backend`` key of a
judge entry), the config keys it adds to the common ones, how it reads and checks them
(:meth:`JudgeBackend.options`), and how it builds a client (:meth:`JudgeBackend.client`). Adding
a backend is adding one module to this package; the SDK it needs is imported only when a judge
of that backend is first used.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from typing import Any, ClassVar

from evald.judges.base import Judge, Media
from evald.judges.http import JudgeHttp
from evald.judges.spec import JudgeSpec, Secret


class JudgeBackend(ABC):
    """One kind of judge endpoint."""

    name: ClassVar[str]
    """The ``backend`` value that selects it (``gemini``, ``openai``)."""
    keys: ClassVar[frozenset[str]] = frozenset()
    """Config keys of its own, besides the common ones (``evald.judges.config.COMMON_KEYS``)."""
    carries: ClassVar[tuple[str, ...]] = ()
    """MIME type patterns of the media it can send to a judge (none: text only)."""
    uri_schemes: ClassVar[tuple[str, ...]] = ()
    """URI schemes of media it can pass by reference (the endpoint fetches them)."""

    def refusal(self, media: Media) -> str | None:
        """Why ``media`` cannot be sent by this backend, or None when it can."""
        if not any(fnmatchcase(media.mime_type.lower(), p) for p in self.carries):
            return f"the {self.name} backend cannot send {media.mime_type or 'untyped'} parts"
        if media.uri:
            scheme = media.uri.split(":", 1)[0].lower() if ":" in media.uri else ""
            if scheme not in self.uri_schemes:
                allowed = ", ".join(f"{s}://" for s in self.uri_schemes) or "none"
                return (
                    f"the {self.name} backend cannot pass a {scheme or 'relative'} URI to the "
                    f"judge (it passes {allowed}); send the bytes inline"
                )
        return None

    @abstractmethod
    def options(self, where: str, entry: Mapping[str, Any], api_key: Secret | None) -> Any:
        """Check the judge entry at ``where`` for this backend (ConfigError naming the key and
        what to do) and return its own settings, kept as ``JudgeSpec.options``."""

    @abstractmethod
    def client(self, spec: JudgeSpec, http: JudgeHttp) -> Judge:
        """A judge calling ``spec``'s endpoint through ``http`` (pooled; closed by evald)."""


def backends() -> dict[str, JudgeBackend]:
    """Every backend, by name: the modules of this package, and any other subclass defined
    in a module already imported."""
    for info in pkgutil.iter_modules(__path__, prefix=f"{__name__}."):
        importlib.import_module(info.name)
    found: dict[str, JudgeBackend] = {}
    base: Any = JudgeBackend  # mypy will not take an abstract class for type[JudgeBackend]
    for cls in _concrete(base):
        if cls.name in found:
            raise RuntimeError(f"two judge backends named {cls.name!r}")
        found[cls.name] = cls()
    return found


def _concrete(base: type[JudgeBackend]) -> Iterator[type[JudgeBackend]]:
    for cls in base.__subclasses__():
        if "name" in cls.__dict__:
            yield cls
        yield from _concrete(cls)
