"""The Metric API: ``metrics[]`` / ``metric_sources[]`` + ``instance`` -> ``metric_results[]``.

Results come in request order: every entry of ``metrics`` first, then every entry of
``metric_sources``. Each metric is evaluated on its own (concurrently); a failing metric gets a
``MetricResult`` with ``error`` (a google.rpc.Status, BadRequest details naming the field) and
``score`` 0.0 (always set: the SDKs read a missing score as NaN or fail). Only a request that
cannot be served at all (no instance, no metric) fails the RPC.
"""

from __future__ import annotations

import asyncio
import logging
from functools import cache
from typing import Any

from evald import api
from evald.call import Call
from evald.discovery import concrete_subclasses
from evald.errors import EvalError, InvalidArgument, NotFound, internal_status
from evald.metric_api.base import Outcome, SpecEvaluator
from evald.metric_api.instance import InstanceView
from evald.store import MetricStore

log = logging.getLogger(__name__)

METRIC_SPEC = api.messages.Metric.DESCRIPTOR.oneofs_by_name["metric_spec"]
SPEC_NAMES = frozenset(f.name for f in METRIC_SPEC.fields)


@cache
def evaluators() -> dict[str, SpecEvaluator]:
    """Every spec evaluator in ``evald.metric_api``, by the ``metric_spec`` member it reads."""
    found: dict[str, SpecEvaluator] = {}
    for cls in concrete_subclasses("evald.metric_api", SpecEvaluator, nested=False):
        evaluator = cls()
        for name in cls.spec_fields:
            if name in found or name not in SPEC_NAMES:
                raise RuntimeError(f"bad or duplicate spec field {name} in {cls}")
            found[name] = evaluator
    return found


class MetricApi:
    """The Metric API: every metric of a request evaluated with the request's Call (its
    sandbox and registered-metric store come with it)."""

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
        if isinstance(stored, EvalError):
            return _failed(stored)
        if stored is None:
            return _failed(
                NotFound(f"{path}.metric_resource_name: metric {name!r} is not registered")
            )
        # Errors inside a registered definition name the reference the caller sent.
        return await self._one(stored, instance, call, f"{path}.metric_resource_name")

    async def _one(self, metric: Any, instance: InstanceView, call: Call, path: str) -> Any:
        which = metric.WhichOneof("metric_spec")
        try:
            if which is None:
                raise InvalidArgument(
                    path,
                    "no metric spec is set; set one of: "
                    + ", ".join(f.name for f in METRIC_SPEC.fields),
                )
            evaluator = evaluators()[which]
            outcome = await evaluator.evaluate(
                which, getattr(metric, which), instance, call, f"{path}.{which}"
            )
        except EvalError as exc:
            return _failed(exc)
        except Exception:
            log.exception("unexpected failure evaluating %s", path)
            result = api.messages.MetricResult(score=0.0)
            result.error.CopyFrom(internal_status())
            return result
        return _result(outcome, instance)


async def _lookup(store: MetricStore, name: str) -> Any:
    item = await store.get(name)
    if item is None:
        return None
    metric = api.messages.Metric()
    metric.ParseFromString(item.metric)
    return metric


def _result(outcome: Outcome, instance: InstanceView) -> Any:
    result = api.messages.MetricResult(score=outcome.score)
    explanation = "\n".join(t for t in (outcome.explanation, instance.note()) if t)
    if explanation:
        result.explanation = explanation
    result.rubric_verdicts.extend(outcome.rubric_verdicts)
    return result


def _failed(error: EvalError) -> Any:
    result = api.messages.MetricResult(score=0.0)
    result.error.CopyFrom(error.to_status())
    return result
