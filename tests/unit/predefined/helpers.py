"""Scoring one instance with one predefined metric, without a server."""

from __future__ import annotations

from typing import Any

from evald import api
from evald.metric_api.instance import InstanceView
from evald.predefined.base import ComputedPredefined, Params
from evald.predefined.registry import registry

PATH = "metrics[0].predefined_metric_spec.metric_spec_parameters"


def instance(**texts: str) -> InstanceView:
    """An InstanceView with the given text fields (prompt, response, reference)."""
    message = api.messages.EvaluationInstance()
    for name, text in texts.items():
        getattr(message, name).text = text
    return InstanceView(message)


def score(name: str, params: dict[str, Any] | None = None, **texts: str) -> float:
    """The score of predefined metric ``name`` on an instance of ``texts``."""
    metric = registry()[name]
    assert isinstance(metric, ComputedPredefined)
    view = instance(**texts)
    return metric.score(Params(params or {}, metric.parameters, PATH), view).score
