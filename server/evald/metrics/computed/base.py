"""Computed metrics: scored locally, one score per instance, batches off the event loop.

:class:`ComputedMetric` serves a ``metric_inputs`` member (``instances`` in, one value per
instance out, large batches scored in the scoring processes) and, when it declares one, its own
Metric API spec and ``ComputationBasedMetricType``. :class:`TextMetric` is one that compares a
prediction text with a reference text: its scoring function takes the two strings.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from evald import api, offload, scoring
from evald.call import Call
from evald.errors import FieldViolation, InvalidArgument
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.offload import INLINE_BYTES

Options = TypeVar("Options")
log = logging.getLogger(__name__)

INLINE_SECONDS = 0.002
"""Scoring CPU time a request may spend on the event loop before the rest is estimated."""
OFFLOAD_SECONDS = 0.01
"""Estimated remaining scoring CPU time above which it moves to the scoring processes (or a
thread): the event loop keeps serving other calls (and judge calls waiting on the network).

Both count the event loop thread's CPU time, not wall time: on a busy machine a thread that
waits for a core would otherwise look slow, and work that fits inline would be sent away at
the cost of serializing it, with no core free to take it (measured under the benchmark's
load: a fifth of 100-pair ROUGE requests went to the scoring processes that way)."""
MIN_CHUNK = 16
"""Fewest instances sent to one scoring process (smaller chunks cost more in messages)."""


class ComputedMetric(Metric, Generic[Options]):
    """A metric computed locally, one score per instance, in instance order.

    Subclasses parse their ``metric_spec`` once per request in :meth:`options` and score an
    instance in :meth:`score` (or a whole batch in :meth:`score_batch`). A spec it serves in
    the Metric API (``spec_fields``: a message of the same fields as its ``metric_spec``, e.g.
    ``bleu_spec``; the name without ``_spec`` is its ``evald evaluate --metric`` name) and its
    ``computation_type`` are parsed by the same :meth:`options` and scored by :meth:`score_view`.
    """

    input_field: ClassVar[str]
    result_field: ClassVar[str]
    required: ClassVar[tuple[str, ...]] = ("prediction", "reference")
    """Instance fields that must be present (an empty string is present; a missing one is not)."""

    @abstractmethod
    def options(self, spec: Any, path: str) -> Options:
        """Validate the metric spec found at ``path`` and turn it into scoring options."""

    @abstractmethod
    def score(self, instance: Any, options: Options, path: str) -> float:
        """Score one instance (found at ``path``)."""

    def score_view(self, instance: InstanceView, options: Options) -> float:
        """Score a Metric API instance (needed when the metric declares a spec)."""
        raise NotImplementedError(f"{type(self).__qualname__} scores no EvaluationInstance")

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        options = self.options(spec, path)
        if instance.message.ByteSize() <= INLINE_BYTES:
            return Outcome(self.score_view(instance, options))
        blob = instance.message.SerializeToString()
        score = await offload.call(_score_view_in_child, type(self), blob, instance.path, options)
        return Outcome(score)

    @classmethod
    def spec_class(cls) -> type[Message]:
        """The generated class of this metric's ``metric_spec`` message."""
        return _input_part(cls.input_field, "metric_spec")

    def score_batch(self, instances: Sequence[Any], options: Options, path: str) -> list[float]:
        """Score every instance of ``path`` (``<input>.instances``); override to vectorise."""
        return [
            self.score(instance, options, f"{path}[{i}]") for i, instance in enumerate(instances)
        ]

    def check_instances(self, instances: Sequence[Any], path: str) -> None:
        """Reject a request with no instances or with required fields missing, naming them all."""
        if not instances:
            raise InvalidArgument(path, "at least one instance is required")
        required = self.required
        for instance in instances:  # field paths are built only once a field is missing
            for name in required:
                if not instance.HasField(name):
                    raise InvalidArgument.of(self._missing_fields(instances, path))

    def _missing_fields(self, instances: Sequence[Any], path: str) -> list[FieldViolation]:
        return [
            FieldViolation(f"{path}[{i}].{name}", f"required field '{name}' is missing")
            for i, instance in enumerate(instances)
            for name in self.required
            if not instance.HasField(name)
        ]

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        instances = metric_input.instances
        instances_path = f"{path}.instances"
        self.check_instances(instances, instances_path)
        opts = self.options(metric_input.metric_spec, f"{path}.metric_spec")
        if len(instances) == 1 and instances[0].ByteSize() <= INLINE_BYTES:
            return self.build_result(self.score_batch(instances, opts, instances_path))
        try:
            scores = await self._score_adaptively(instances, opts, instances_path)
        except Exception:
            # Scored piecewise, an error names indices relative to a piece and only the
            # violations found in it: score the batch whole, off the loop, for the exact error.
            scores = await asyncio.to_thread(self.score_batch, instances, opts, instances_path)
        return self.build_result(scores)

    async def _score_adaptively(
        self, instances: Sequence[Any], opts: Options, path: str
    ) -> list[float]:
        """Score inline for up to :data:`INLINE_SECONDS` (doubling pieces: 1, 2, 4, ...), then
        finish inline if the rest is estimated cheap, else off the event loop."""
        scores: list[float] = []
        done, step, start = 0, 1, time.thread_time()
        elapsed = 0.0
        while done < len(instances) and elapsed < INLINE_SECONDS:
            piece = instances[done : done + step]
            if sum(instance.ByteSize() for instance in piece) > INLINE_BYTES:
                break  # too large to score on the loop whatever the estimate says
            scores += self.score_batch(piece, opts, path)
            done += step
            elapsed = max(time.thread_time() - start, 1e-9)
            # Double the piece, but not past the budget (a doubled last piece could take as
            # long as everything before it).
            step = min(2 * step, max(1, int((INLINE_SECONDS - elapsed) * done / elapsed)))
        if done >= len(instances):
            return scores
        rest = instances[done:]
        if done == 0:  # the first piece was too large
            return await _offload(self, rest, opts, path)
        estimate = elapsed / done * len(rest)
        if estimate <= OFFLOAD_SECONDS:
            return scores + self.score_batch(rest, opts, path)
        return scores + await _offload(self, rest, opts, path)

    @classmethod
    def build_result(cls, scores: Sequence[float]) -> Message:
        """The result message holding one metric value per score, each with ``score`` set."""
        result_class, values_field = _result_values(cls.result_field)
        result = result_class()
        values = getattr(result, values_field)
        for value in scores:
            values.add(score=value)  # always set, 0.0 included: the SDKs read a missing one as NaN
        return result


class TextMetric(ComputedMetric[Options]):
    """A computed metric of a prediction text against a reference text; in the Metric API the
    prediction is the instance's ``response`` and the reference its ``reference``."""

    @abstractmethod
    def score_text(self, prediction: str, reference: str, options: Options) -> float:
        """Score ``prediction`` against ``reference``."""

    def score(self, instance: Any, options: Options, path: str) -> float:
        return self.score_text(instance.prediction, instance.reference, options)

    def score_batch(self, instances: Sequence[Any], options: Options, path: str) -> list[float]:
        score_text = self.score_text
        return [score_text(i.prediction, i.reference, options) for i in instances]

    def score_view(self, instance: InstanceView, options: Options) -> float:
        return self.score_text(instance.require("response"), instance.require("reference"), options)


@cache
def _input_part(input_field: str, part: str) -> type[Message]:
    descriptor: Any = api.REQUEST.fields_by_name[input_field].message_type
    return GetMessageClass(descriptor.fields_by_name[part].message_type)


@cache
def _result_values(result_field: str) -> tuple[type[Message], str]:
    """The result class of ``result_field`` and the name of its one (repeated values) field."""
    descriptor: Any = api.RESPONSE.fields_by_name[result_field].message_type
    result_class = GetMessageClass(descriptor)
    (values_field,) = result_class.DESCRIPTOR.fields
    return result_class, values_field.name


# Scoring processes (evald.scoring) -----------------------------------------------------------


async def _offload(
    metric: ComputedMetric[Any], instances: Sequence[Any], opts: Any, path: str
) -> list[float]:
    """Score ``instances`` in the scoring processes (in pieces, one per process), or in a
    thread when there are none or the work cannot be sent to them."""
    processes = scoring.scoring_processes()
    if processes > 0:
        pieces = max(1, min(processes, len(instances) // MIN_CHUNK))
        size = -(-len(instances) // pieces)
        blobs = [instance.SerializeToString() for instance in instances]
        instance_class = type(instances[0])
        calls = [
            scoring.run_job(
                _score_in_child, type(metric), instance_class, blobs[i : i + size], opts
            )
            for i in range(0, len(blobs), size)
        ]
        try:
            results = await asyncio.gather(*calls)
        except scoring.ScoringUnavailable:
            pass  # e.g. a scoring process was killed: this batch goes to a thread
        else:
            if any(result is None for result in results):
                raise _PieceFailed
            return [score for result in results if result is not None for score in result]
    return await asyncio.to_thread(metric.score_batch, instances, opts, path)


def _score_view_in_child(
    metric_class: type[ComputedMetric[Any]], blob: bytes, path: str, options: Any
) -> float:
    """Runs in a scoring process: a Metric API instance scored by ``metric_class``."""
    instance = InstanceView(api.messages.EvaluationInstance.FromString(blob), path)
    return _child_metric(metric_class).score_view(instance, options)


class _PieceFailed(Exception):
    """A scoring process could not score its piece (e.g. a bad instance)."""


@cache
def _child_metric(metric_class: type[ComputedMetric[Any]]) -> ComputedMetric[Any]:
    return metric_class()


def _score_in_child(
    metric_class: type[ComputedMetric[Any]],
    instance_class: type[Message],
    blobs: list[bytes],
    opts: Any,
) -> list[float] | None:
    """Runs in a scoring process. On any error it returns None, and the caller scores the whole
    batch again to raise the error with the right field paths."""
    try:
        instances = [instance_class.FromString(blob) for blob in blobs]
        return _child_metric(metric_class).score_batch(instances, opts, "")
    except Exception:
        return None
