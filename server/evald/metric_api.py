"""The Metric API: ``metrics[]`` / ``metric_sources[]`` + ``instance`` -> ``metric_results[]``.

Each ``metric_spec`` member goes to the metric that declares it (``spec_fields``);
``computation_based_metric_spec`` goes to the metric of its ``type`` (``computation_type``),
with ``parameters`` read as that metric's own spec in JSON (e.g. ``{"rouge_type": "rougeL",
"use_stemmer": true}``); ``predefined_metric_spec`` goes to the metric of its
``metric_spec_name`` (``name`` or ``aliases``).

Results come in request order: every entry of ``metrics`` first, then every entry of
``metric_sources``. Each metric is evaluated on its own (concurrently); a failing metric gets a
``MetricResult`` with ``error`` (a google.rpc.Status, BadRequest details naming the field) and
``score`` 0.0 (always set: the SDKs read a missing score as NaN or fail). Only a request that
cannot be served at all (no instance, no metric) fails the RPC.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from google.protobuf import json_format

from evald import api
from evald.call import Call
from evald.errors import EvalError, InvalidArgument, NotFound, internal_status
from evald.judges import usage
from evald.metrics.base import Outcome
from evald.metrics.catalog import Catalog
from evald.metrics.computed.base import ComputedMetric
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params
from evald.store import MetricStore

log = logging.getLogger(__name__)

METRIC_SPEC = api.messages.Metric.DESCRIPTOR.oneofs_by_name["metric_spec"]
SPEC_NAMES = frozenset(f.name for f in METRIC_SPEC.fields)


class MetricApi:
    """The Metric API over the metrics of ``catalog``: every metric of a request evaluated with
    the request's Call (its sandbox and registered-metric store come with it)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    async def evaluate(self, request: Any, call: Call) -> Any:
        """The EvaluateInstancesResponse of a request with ``metrics`` / ``metric_sources``."""
        if not request.HasField("instance"):
            raise InvalidArgument(
                "instance", "the Metric API (metrics / metric_sources) needs an instance"
            )
        if request.WhichOneof("metric_inputs") is not None:
            raise InvalidArgument(
                request.WhichOneof("metric_inputs"),
                "set either one metric input or metrics / metric_sources, not both",
            )
        instance = InstanceView(request.instance)
        jobs = [
            self._one(m, instance, call, f"metrics[{i}]") for i, m in enumerate(request.metrics)
        ]
        jobs += [
            self._source(s, instance, call, f"metric_sources[{i}]")
            for i, s in enumerate(request.metric_sources)
        ]
        results = await asyncio.gather(*jobs)
        response = api.messages.EvaluateInstancesResponse()
        response.metric_results.extend(results)
        return response

    async def _source(self, source: Any, instance: InstanceView, call: Call, path: str) -> Any:
        which = source.WhichOneof("metric_source")
        if which == "metric":
            return await self._one(source.metric, instance, call, f"{path}.metric")
        if which is None:
            return _failed(InvalidArgument(path, "set metric or metric_resource_name"))
        name = source.metric_resource_name
        stored = None if call.store is None else await _lookup(call.store, name)
        if stored is None:
            return _failed(
                NotFound(f"{path}.metric_resource_name: metric {name!r} is not registered")
            )
        # Errors inside a registered definition name the reference the caller sent.
        return await self._one(stored, instance, call, f"{path}.metric_resource_name")

    async def _one(self, metric: Any, instance: InstanceView, call: Call, path: str) -> Any:
        try:
            # Each metric runs in a task of its own (gather), so the part is this metric's.
            with usage.part(path.split(".")[0]):
                outcome = await self.outcome(metric, instance, call, path)
        except EvalError as exc:
            return _failed(exc)
        except Exception:
            log.exception("unexpected failure evaluating %s", path)
            result = api.messages.MetricResult(score=0.0)
            result.error.CopyFrom(internal_status())
            return result
        return _result(outcome, instance)

    async def outcome(self, metric: Any, instance: InstanceView, call: Call, path: str) -> Outcome:
        """The outcome of the ``Metric`` message ``metric`` (found at request field ``path``)
        on ``instance``; raises EvalError."""
        which = metric.WhichOneof("metric_spec")
        if which is None:
            raise InvalidArgument(
                path,
                "no metric spec is set; set one of: "
                + ", ".join(f.name for f in METRIC_SPEC.fields),
            )
        spec, where = getattr(metric, which), f"{path}.{which}"
        if which == "computation_based_metric_spec":
            return await self._computation_based(spec, instance, call, where)
        if which == "predefined_metric_spec":
            return await self._named(spec, instance, call, where)
        served = self.catalog.specs.get(which)
        if served is None:
            raise InvalidArgument(where, f"{which} is not served by this server")
        return await served.evaluate_spec(which, spec, instance, call, where)

    async def _computation_based(
        self, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        types = self.catalog.computation_types
        name = spec.ComputationBasedMetricType.Name(spec.type_ if spec.HasField("type_") else 0)
        metric = types.get(name)
        if not isinstance(metric, ComputedMetric):
            raise InvalidArgument(f"{path}.type", f"set type to one of {', '.join(types)}")
        spec_class = metric.spec_class()
        own = spec_class()
        if spec.HasField("parameters"):
            try:
                json_format.ParseDict(json_format.MessageToDict(spec.parameters), own)
            except json_format.ParseError as exc:
                allowed = ", ".join(f.name for f in spec_class.DESCRIPTOR.fields) or "none"
                raise InvalidArgument(
                    f"{path}.parameters", f"{exc} (parameters of {name}: {allowed})"
                ) from None
        which = "computation_based_metric_spec"
        return await metric.evaluate_spec(which, own, instance, call, f"{path}.parameters")

    async def _named(self, spec: Any, instance: InstanceView, call: Call, path: str) -> Outcome:
        metric = self.catalog.named.get(spec.metric_spec_name)
        if metric is None:
            raise InvalidArgument(
                f"{path}.metric_spec_name",
                f"unknown predefined metric {spec.metric_spec_name!r}; this server has: "
                + ", ".join(self.catalog.named),
            )
        values = json_format.MessageToDict(spec.metric_spec_parameters)
        params = Params(values, metric.parameters, f"{path}.metric_spec_parameters")
        return await metric.evaluate_named(params, instance, call, path)


async def _lookup(store: MetricStore, name: str) -> Any:
    item = await store.get(name)
    if item is None:
        return None
    metric = api.messages.Metric()
    metric.ParseFromString(item.metric)
    return metric


def _result(outcome: Outcome, instance: InstanceView) -> Any:
    result = api.messages.MetricResult(score=outcome.score)
    note = "" if outcome.saw_all_parts else instance.note()
    explanation = "\n".join(t for t in (outcome.explanation, note) if t)
    if explanation:
        result.explanation = explanation
    result.rubric_verdicts.extend(outcome.rubric_verdicts)
    return result


def _failed(error: EvalError) -> Any:
    result = api.messages.MetricResult(score=0.0)
    result.error.CopyFrom(error.to_status())
    return result
