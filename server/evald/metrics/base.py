"""What a metric is: one class that declares every API entry point it serves.

A metric is a concrete subclass of :class:`Metric` in a module under ``evald.metrics`` (or in a
module named by the ``metric_modules`` setting). Its class attributes say how requests reach it:

- ``input_field`` / ``result_field``: a member of ``EvaluateInstancesRequest.metric_inputs``
  and the member of ``evaluation_results`` it fills (served by :meth:`Metric.evaluate_input`);
- ``spec_fields``: members of the Metric API's ``Metric.metric_spec``
  (:meth:`Metric.evaluate_spec`);
- ``computation_type``: a ``ComputationBasedMetricType`` name; ``computation_based_metric_spec``
  then reaches :meth:`Metric.evaluate_spec` with the metric's own spec read from
  ``parameters``;
- ``name`` and ``aliases``: names for ``predefined_metric_spec.metric_spec_name``
  (:meth:`Metric.evaluate_named`), described by ``family``, ``definition``, ``parameters``,
  ``score_range`` and ``needs_judge`` for the listing RPC and the docs;
- ``nemo_type``: its metric ``type`` in NeMo Evaluator API configs (``string-check``), with the
  score names it reports there (``nemo_score_names``); :meth:`Metric.nemo_params` reads NeMo's
  ``params`` into the metric's own parameters and :meth:`Metric.nemo_scores` scores one row
  (:mod:`evald.nemo`).

:mod:`evald.metrics.catalog` finds every metric in one pass and builds the tables behind
``metric_inputs``, ``metrics[]`` and the named metrics from these declarations; it refuses a
metric that declares an entry point without implementing it, or one served twice.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from evald import api, offload
from evald.call import Call
from evald.metrics.instance import InstanceView, TemplateRow
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import inline_safe
from evald.offload import INLINE_BYTES

ENTRY_POINTS = ("input_field", "spec_fields", "computation_type", "name")
"""The declarations that make a class a metric (set in the class itself, not inherited)."""


@dataclass
class Outcome:
    """One Metric API or named-metric result: ``score`` is always set on the wire."""

    score: float
    explanation: str | None = None
    rubric_verdicts: list[Any] = field(default_factory=list)
    """``RubricVerdict`` messages."""
    saw_all_parts: bool = False
    """Every part of the instance was read (a judge shown the media too): no note about
    skipped parts is added."""


class Metric(ABC):  # noqa: B024  (no method is required of every metric: see the catalog)
    """One metric. Set the entry points it serves and implement their methods; the catalog
    checks that each declared entry point is implemented."""

    input_field: ClassVar[str | None] = None
    """Member of the request's ``metric_inputs`` oneof it reads, e.g. ``bleu_input``."""
    result_field: ClassVar[str | None] = None
    """Member of the response's ``evaluation_results`` oneof it fills, e.g. ``bleu_results``."""
    spec_fields: ClassVar[tuple[str, ...]] = ()
    """Members of ``Metric.metric_spec`` (the Metric API) it evaluates, e.g. ``bleu_spec``."""
    computation_type: ClassVar[str | None] = None
    """Its ``ComputationBasedMetricType`` name, e.g. ``BLEU``."""
    name: ClassVar[str | None] = None
    """Its ``predefined_metric_spec.metric_spec_name``, e.g. ``nemo/rouge``."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names that ask for the same metric (the SDKs' version suffixes: one metric served
    under ``general_quality_v1`` and ``general_quality_v2``)."""
    family: ClassVar[str] = "vertex"
    """``vertex``, ``nemo`` or ``fmeval``: whose named metric it is."""
    definition: ClassVar[str] = ""
    """How a named metric's score is computed, for the docs and the listing RPC."""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    """A named metric's ``metric_spec_parameters``."""
    score_range: ClassVar[str] = "0 or 1"
    needs_judge: ClassVar[bool] = False
    nemo_type: ClassVar[str | None] = None
    """Its metric ``type`` in NeMo Evaluator API configs, e.g. ``string-check``."""
    nemo_score_names: ClassVar[tuple[str, ...]] = ()
    """The scores it reports per row there (a metric result's ``scores`` keys)."""
    model_kind: ClassVar[str | None] = None
    """For a model-backed metric: the :class:`evald.models.base.ModelKind` it runs, as
    ``module:Class`` (``evald models list`` shows it)."""
    default_model: ClassVar[str | None] = None
    """For a model-backed metric: the model it uses unless told otherwise, a name under the
    models directory (``roberta-large``) or a path."""

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        """Evaluate ``metric_input`` (the request's ``input_field`` member, found at ``path``)
        into the result message of ``result_field``."""
        raise NotImplementedError(f"{type(self).__qualname__} serves no metric input")

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        """Score ``instance`` with ``spec``: the ``metric_spec`` member ``which`` (one of
        ``spec_fields``, or ``computation_based_metric_spec`` with the metric's own spec
        message), found at request field ``path``."""
        raise NotImplementedError(f"{type(self).__qualname__} serves no metric spec")

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        """Score ``instance`` as the named metric; ``path`` is the request field of the
        ``predefined_metric_spec``."""
        raise NotImplementedError(f"{type(self).__qualname__} serves no metric name")

    def dataset_scores(self, params: Params, instances: Sequence[InstanceView]) -> dict[str, float]:
        """Scores of the named metric over a whole dataset (the rows it scored without error),
        reported beside the statistics of its row scores: NeMo's corpus BLEU. None by
        default."""
        return {}

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        """NeMo's ``params`` of this metric (found at request field ``path``) as values of its
        own ``parameters``; InvalidArgument naming the field of a bad one."""
        raise NotImplementedError(f"{type(self).__qualname__} serves no NeMo metric type")

    def nemo_scores(self, params: Params, row: TemplateRow) -> dict[str, float]:
        """One row's scores under ``nemo_score_names`` (NaN: no score, as NeMo counts it);
        runs in a scoring process. By default the named metric's score."""
        outcome = self.score_row(params, row)
        return {self.nemo_score_names[0]: outcome.score}

    def nemo_dataset_scores(self, params: Params, rows: Sequence[TemplateRow]) -> dict[str, float]:
        """Scores over every row scored without error (NeMo's corpus BLEU); none by default."""
        return {}

    def score_row(self, params: Params, row: InstanceView) -> Outcome:
        """The named metric's score of one row, computed in this process."""
        raise NotImplementedError(f"{type(self).__qualname__} is not computed locally")

    @classmethod
    def result_class(cls) -> type[Message]:
        """The generated class of the ``result_field`` message."""
        assert cls.result_field is not None, cls
        return _result_class(cls.result_field)


class ComputedNamed(Metric):
    """A named metric computed locally (no judge, no sandbox): on the event loop when the
    instance is small and its templates are simple, else off it (:mod:`evald.offload`)."""

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        """Score ``instance``."""
        raise NotImplementedError

    def score_row(self, params: Params, row: InstanceView) -> Outcome:
        return self.score_named(params, row)

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        if instance.message.ByteSize() <= INLINE_BYTES and all(
            inline_safe(text) for text in _strings(params.values)
        ):
            return self.score_named(params, instance)
        blob = instance.message.SerializeToString()
        outcome: Outcome = await offload.call(
            _score_named, type(self), params.values, params.path, blob, instance.path
        )
        return outcome


def _strings(values: Any) -> list[str]:
    """Every string in parameter values (templates among them)."""
    if isinstance(values, str):
        return [values]
    if isinstance(values, dict):
        return [s for value in values.values() for s in _strings(value)]
    if isinstance(values, list):
        return [s for value in values for s in _strings(value)]
    return []


def _score_named(
    metric_class: type[ComputedNamed], values: dict[str, Any], path: str, blob: bytes, at: str
) -> Outcome:
    """Runs off the event loop: ``metric_class`` scores the serialized instance."""
    params = Params(values, metric_class.parameters, path)
    instance = InstanceView(api.messages.EvaluationInstance.FromString(blob), at)
    return metric_class().score_named(params, instance)


@cache
def _result_class(result_field: str) -> type[Message]:
    descriptor = api.RESPONSE.fields_by_name[result_field].message_type
    assert descriptor is not None, result_field
    return GetMessageClass(descriptor)
