"""A named metric's ``metric_spec_parameters``: what it declares and what a request sends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import isfinite
from typing import Any

from evald.errors import InvalidArgument


@dataclass(frozen=True)
class Parameter:
    """One entry of ``metric_spec_parameters``."""

    name: str
    kind: str
    """``string``, ``number``, ``boolean``, ``string list`` or ``choice``."""
    description: str
    default: Any = None
    choices: tuple[str, ...] = ()


class Params:
    """``metric_spec_parameters`` as a dict, checked against the metric's declared parameters."""

    def __init__(self, values: dict[str, Any], declared: Sequence[Parameter], path: str) -> None:
        self.path = path
        self.declared = {p.name: p for p in declared}
        unknown = sorted(set(values) - set(self.declared))
        if unknown:
            allowed = ", ".join(self.declared) or "none"
            raise InvalidArgument(
                f"{path}.{unknown[0]}", f"unknown parameter; this metric takes: {allowed}"
            )
        self.values = values

    def field(self, name: str) -> str:
        """Request path of parameter ``name``."""
        return f"{self.path}.{name}"

    def _get(self, name: str) -> Any:
        value = self.values.get(name)
        return self.declared[name].default if value is None else value

    def string(self, name: str) -> str:
        """A string parameter (or its default)."""
        value = self._get(name)
        if not isinstance(value, str):
            raise InvalidArgument(self.field(name), "must be a string")
        return value

    def choice(self, name: str) -> str:
        """A string parameter that must be one of the declared choices."""
        value = self.string(name)
        choices = self.declared[name].choices
        if value not in choices:
            raise InvalidArgument(self.field(name), f"must be one of: {', '.join(choices)}")
        return value

    def boolean(self, name: str) -> bool:
        """A boolean parameter (or its default)."""
        value = self._get(name)
        if not isinstance(value, bool):
            raise InvalidArgument(self.field(name), "must be true or false")
        return value

    def number(self, name: str) -> float:
        """A finite number parameter (or its default)."""
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not isfinite(value):
            raise InvalidArgument(self.field(name), "must be a finite number")
        return float(value)

    def strings(self, name: str) -> list[str] | None:
        """A list-of-strings parameter, or None when unset and without default."""
        value = self._get(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidArgument(self.field(name), "must be a list of strings")
        return list(value)
