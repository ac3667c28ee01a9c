"""What a spec evaluator is: one or more members of ``Metric.metric_spec`` in, a score out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from evald.metric_api.instance import InstanceView

if TYPE_CHECKING:
    from evald.metric_api.dispatch import MetricApi


@dataclass
class Outcome:
    """One metric's result: ``score`` is always set on the wire."""

    score: float
    explanation: str | None = None
    rubric_verdicts: list[Any] = field(default_factory=list)
    """``RubricVerdict`` messages."""


@dataclass(frozen=True)
class Call:
    """What one metric's evaluation may use besides its spec and the instance."""

    api: MetricApi
    request: Any
    """The whole EvaluateInstancesRequest (for ``autorater_config``)."""


class SpecEvaluator(ABC):
    """Evaluates the ``Metric.metric_spec`` members named in :attr:`spec_fields`."""

    spec_fields: ClassVar[tuple[str, ...]]

    @abstractmethod
    async def evaluate(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        """Score ``instance`` with ``spec`` (member ``which``, found at request field ``path``)."""
