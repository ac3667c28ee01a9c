"""What a predefined metric is: a name, a definition, typed parameters and a scoring rule.

A predefined metric is one module-level subclass of :class:`PredefinedMetric` anywhere in this
package; :func:`evald.predefined.registry.registry` finds it by discovery.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from evald.call import Call
from evald.errors import InvalidArgument
from evald.metric_api.base import Outcome
from evald.metric_api.instance import InstanceView


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

    def strings(self, name: str) -> list[str] | None:
        """A list-of-strings parameter, or None when unset and without default."""
        value = self._get(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidArgument(self.field(name), "must be a list of strings")
        return list(value)


class PredefinedMetric(ABC):
    """A named metric for ``predefined_metric_spec.metric_spec_name``."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names that ask for the same metric (the SDKs' version suffixes: one metric served
    under ``general_quality_v1`` and ``general_quality_v2``)."""
    family: ClassVar[str]
    """``nemo``, ``fmeval`` or ``vertex``."""
    definition: ClassVar[str]
    """How the score is computed, for the docs and the listing RPC."""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    score_range: ClassVar[str] = "0 or 1"
    needs_judge: ClassVar[bool] = False

    @abstractmethod
    async def evaluate(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        """Score ``instance``; ``path`` is the request field of the predefined spec."""


class ComputedPredefined(PredefinedMetric):
    """A predefined metric computed locally and quickly (no judge, no sandbox)."""

    @abstractmethod
    def score(self, params: Params, instance: InstanceView) -> Outcome:
        """Score ``instance``."""

    async def evaluate(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        return self.score(params, instance)
