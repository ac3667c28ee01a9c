"""What a spec evaluator is: one or more members of ``Metric.metric_spec`` in, a score out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from evald.call import Call
from evald.metric_api.instance import InstanceView


@dataclass
class Outcome:
    """One metric's result: ``score`` is always set on the wire."""

    score: float
    explanation: str | None = None
    rubric_verdicts: list[Any] = field(default_factory=list)
    """``RubricVerdict`` messages."""


class SpecEvaluator(ABC):
    """Evaluates the ``Metric.metric_spec`` members named in :attr:`spec_fields`."""

    spec_fields: ClassVar[tuple[str, ...]]

    @abstractmethod
    async def evaluate(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        """Score ``instance`` with ``spec`` (member ``which``, found at request field ``path``)."""
