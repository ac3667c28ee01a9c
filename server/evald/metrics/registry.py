"""Finds every metric handler and says which request inputs are not handled yet, and why."""

from __future__ import annotations

from functools import cache
from typing import Any

from evald import api
from evald.discovery import concrete_subclasses
from evald.metrics.base import ComputedMetric, Handler

CHECKPOINT_PENDING = (
    "{name} scores with a learned model checkpoint, which evald does not load yet: supplying a "
    "local checkpoint (e.g. a path in the server config) is not supported; use a judge metric "
    "(pointwise_metric_input) or compute {name} offline"
)
PENDING: dict[str, str] = {
    "comet_input": CHECKPOINT_PENDING.format(name="COMET"),
    "metricx_input": CHECKPOINT_PENDING.format(name="MetricX"),
}
"""Members of ``metric_inputs`` with no handler yet, and what will handle them."""


@cache
def handlers() -> dict[str, Handler]:
    """Every concrete handler in the ``evald.metrics`` package, by the input field it reads."""
    found: dict[str, Handler] = {}
    for cls in concrete_subclasses("evald.metrics", Handler):
        if cls.input_field in found:
            raise RuntimeError(f"two handlers for {cls.input_field}: {cls.__qualname__}")
        if cls.input_field not in {f.name for f in api.METRIC_INPUTS.fields}:
            raise RuntimeError(f"{cls.__qualname__} reads unknown input {cls.input_field}")
        found[cls.input_field] = cls()
    return found


def computed() -> dict[str, ComputedMetric[Any]]:
    """The computed metrics, by the ``metric_inputs`` member each reads."""
    return {name: h for name, h in handlers().items() if isinstance(h, ComputedMetric)}


def by_spec_field() -> dict[str, ComputedMetric[Any]]:
    """The computed metrics the Metric API asks for by a spec of their own (``bleu_spec``)."""
    return {h.spec_field: h for h in computed().values() if h.spec_field is not None}


def by_computation_type() -> dict[str, ComputedMetric[Any]]:
    """The computed metrics ``computation_based_metric_spec.type`` names (``BLEU``)."""
    return {h.computation_type: h for h in computed().values() if h.computation_type is not None}
