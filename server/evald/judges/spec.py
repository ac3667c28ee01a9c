"""What a judge config entry becomes: :class:`JudgeSpec`, its :class:`Secret`, the errors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

_OFF = ("0", "false", "no", "off")
_ON = ("1", "true", "yes", "on")


class ConfigError(Exception):
    """The judge configuration is invalid; the message says what to fix (never a secret)."""


class Secret:
    """A credential that never shows up in a repr, str or log line."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself, for the SDK call only."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class JudgeSpec:
    """One ``[judges.<name>]`` entry."""

    name: str
    backend: str
    model: str
    models: tuple[str, ...] = ()
    base_url: str | None = None
    api_key: Secret | None = field(default=None, compare=False)
    api_version: str | None = None
    max_concurrency: int = 8
    structured_output: bool = True
    """Ask for JSON matching a schema (Gemini ``responseJsonSchema``, OpenAI ``json_schema``)."""
    media_types: tuple[str, ...] | None = None
    """MIME type patterns (``image/*``) of the media the judge's model reads; None: what its
    backend can carry. ``()`` is a text-only judge."""
    options: Any = None
    """The backend's own settings, as its module read them (``JudgeBackend.options``)."""

    def reads(self, mime_type: str, carried: tuple[str, ...]) -> bool:
        """Whether media of ``mime_type`` reach this judge's model (``carried``: the patterns
        its backend can send)."""
        accepted = carried if self.media_types is None else self.media_types
        kind = mime_type.lower()
        return any(fnmatchcase(kind, p) for p in accepted) and any(
            fnmatchcase(kind, p) for p in carried
        )

    def serves(self, model: str) -> bool:
        """Whether a request naming ``model`` (short form) goes to this judge."""
        return model in (self.name, self.model) or any(
            fnmatchcase(model, pattern) for pattern in self.models
        )


_RESOURCE = re.compile(r"^(?:.*/)?models/(?P<name>[^/]+)$")


def short_model_name(name: str) -> str:
    """The model id of a resource name: ``projects/p/.../models/gemini-2.5-flash`` -> the id."""
    name = name.strip()
    match = _RESOURCE.match(name)
    return match["name"] if match else name


def flag(value: Any, name: str) -> bool:
    """A true/false setting (``true``, ``yes``, ``on``, ``1``, ...); ConfigError otherwise."""
    if isinstance(value, bool):
        return value
    if str(value).lower() in _ON:
        return True
    if str(value).lower() in _OFF:
        return False
    raise ConfigError(f"{name} must be true or false, got {value!r}")
