"""``exact_match_spec``, ``bleu_spec``, ``rouge_spec`` and ``computation_based_metric_spec``.

Each is scored by the very handler that serves the matching ``*_input`` (``evald.metrics``):
the handler parses its spec with ``options()`` and scores a legacy instance built from the
EvaluationInstance (``prediction`` = response text, ``reference`` = reference text).
``computation_based_metric_spec.parameters`` is read as that handler's spec message in JSON
(e.g. ``{"rouge_type": "rougeL", "use_stemmer": true}``).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message_factory import GetMessageClass

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.metric_api.base import Outcome, SpecEvaluator
from evald.metric_api.instance import InstanceView
from evald.metrics.base import ComputedMetric
from evald.metrics.registry import by_computation_type, by_spec_field, handlers

INPUT_OF_SPEC = {spec: metric.input_field for spec, metric in by_spec_field().items()}
"""Each computed metric's own spec (``bleu_spec``) -> its ``metric_inputs`` member, as the
metrics declare them."""
INPUT_OF_TYPE = {kind: metric.input_field for kind, metric in by_computation_type().items()}
"""``ComputationBasedMetricType`` names -> ``metric_inputs`` members, as the metrics declare."""


def _parts(input_field: str) -> tuple[ComputedMetric[Any], type[Any], type[Any]]:
    handler = handlers()[input_field]
    assert isinstance(handler, ComputedMetric), input_field
    descriptor: Any = api.REQUEST.fields_by_name[input_field].message_type
    spec_class = GetMessageClass(descriptor.fields_by_name["metric_spec"].message_type)
    instance_class = GetMessageClass(descriptor.fields_by_name["instances"].message_type)
    return handler, spec_class, instance_class


def score_with(input_field: str, spec: Any, instance: InstanceView, path: str) -> Outcome:
    """Score ``instance`` with the computed handler of ``input_field`` and its spec message."""
    handler, _, instance_class = _parts(input_field)
    options = handler.options(spec, path)
    legacy = instance_class(
        prediction=instance.require("response"), reference=instance.require("reference")
    )
    return Outcome(handler.score(legacy, options, instance.path))


class ComputedSpecs(SpecEvaluator):
    """The computed metrics, by spec message or by ``ComputationBasedMetricType``."""

    spec_fields = (*INPUT_OF_SPEC, "computation_based_metric_spec")

    async def evaluate(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        if which in INPUT_OF_SPEC:
            return score_with(INPUT_OF_SPEC[which], spec, instance, path)
        kind = spec.type_ if spec.HasField("type_") else 0
        name = spec.ComputationBasedMetricType.Name(kind)
        input_field = INPUT_OF_TYPE.get(name)
        if input_field is None:
            raise InvalidArgument(f"{path}.type", f"set type to one of {', '.join(INPUT_OF_TYPE)}")
        _, spec_class, _ = _parts(input_field)
        legacy_spec = spec_class()
        if spec.HasField("parameters"):
            try:
                json_format.ParseDict(json_format.MessageToDict(spec.parameters), legacy_spec)
            except json_format.ParseError as exc:
                allowed = ", ".join(f.name for f in spec_class.DESCRIPTOR.fields) or "none"
                raise InvalidArgument(
                    f"{path}.parameters", f"{exc} (parameters of {name}: {allowed})"
                ) from None
        return score_with(input_field, legacy_spec, instance, f"{path}.parameters")
