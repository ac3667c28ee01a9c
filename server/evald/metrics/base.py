"""What a metric handler is: one member of ``EvaluateInstancesRequest.metric_inputs`` in, one
member of ``EvaluateInstancesResponse.evaluation_results`` out.

Handlers are discovered (see ``evald.metrics.registry``): a new metric is one new module holding
a concrete subclass of :class:`Handler` (usually of :class:`ComputedMetric`).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from evald import api
from evald.errors import FieldViolation, InvalidArgument

Options = TypeVar("Options")

# Batches larger than this are scored off the event loop, so one big request cannot stall others.
INLINE_INSTANCES = 32


class Handler(ABC):
    """Turns one metric input message into its result message."""

    input_field: ClassVar[str]
    """Member of the request's ``metric_inputs`` oneof this handler reads, e.g. ``bleu_input``."""
    result_field: ClassVar[str]
    """Member of the response's ``evaluation_results`` oneof it fills, e.g. ``bleu_results``."""

    @abstractmethod
    async def evaluate(self, metric_input: Any, path: str) -> Message:
        """Evaluate ``metric_input`` (found at request field ``path``) into a result message."""

    @classmethod
    def result_class(cls) -> type[Message]:
        """The generated class of this handler's result message."""
        return GetMessageClass(api.RESPONSE.fields_by_name[cls.result_field].message_type)


class ComputedMetric(Handler, Generic[Options]):
    """A metric computed locally, one score per instance, in instance order.

    Subclasses parse their ``metric_spec`` once per request in :meth:`options` and score an
    instance in :meth:`score` (or a whole batch in :meth:`score_batch`).
    """

    required: ClassVar[tuple[str, ...]] = ("prediction", "reference")
    """Instance fields that must be present (an empty string is present; a missing one is not)."""

    @abstractmethod
    def options(self, spec: Any, path: str) -> Options:
        """Validate the metric spec found at ``path`` and turn it into scoring options."""

    @abstractmethod
    def score(self, instance: Any, options: Options, path: str) -> float:
        """Score one instance (found at ``path``)."""

    def score_batch(self, instances: Sequence[Any], options: Options, path: str) -> list[float]:
        """Score every instance of ``path`` (``<input>.instances``); override to vectorise."""
        return [
            self.score(instance, options, f"{path}[{i}]") for i, instance in enumerate(instances)
        ]

    def check_instances(self, instances: Sequence[Any], path: str) -> None:
        """Reject a request with no instances or with required fields missing, naming them all."""
        if not instances:
            raise InvalidArgument(path, "at least one instance is required")
        violations = [
            FieldViolation(f"{path}[{i}].{name}", f"required field '{name}' is missing")
            for i, instance in enumerate(instances)
            for name in self.required
            if not instance.HasField(name)
        ]
        if violations:
            raise InvalidArgument.of(violations)

    async def evaluate(self, metric_input: Any, path: str) -> Message:
        instances = metric_input.instances
        self.check_instances(instances, f"{path}.instances")
        opts = self.options(metric_input.metric_spec, f"{path}.metric_spec")
        if len(instances) > INLINE_INSTANCES:
            scores = await asyncio.to_thread(
                self.score_batch, instances, opts, f"{path}.instances"
            )
        else:
            scores = self.score_batch(instances, opts, f"{path}.instances")
        return self.build_result(scores)

    @classmethod
    def build_result(cls, scores: Sequence[float]) -> Message:
        """The result message holding one metric value per score, each with ``score`` set."""
        result = cls.result_class()()
        (values_field,) = result.DESCRIPTOR.fields
        values = getattr(result, values_field.name)
        for value in scores:
            values.add(score=value)  # always set, 0.0 included: the SDKs read a missing one as NaN
        return result
