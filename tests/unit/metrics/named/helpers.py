"""Scoring one instance with one named metric computed locally, without a server."""

from __future__ import annotations

import asyncio
from typing import Any

from evald import api
from evald.metrics.catalog import builtin
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params

from tests.support import CALL

PATH = "metrics[0].predefined_metric_spec.metric_spec_parameters"


def instance(**texts: str) -> InstanceView:
    """An InstanceView with the given text fields (prompt, response, reference)."""
    message = api.messages.EvaluationInstance()
    for name, text in texts.items():
        getattr(message, name).text = text
    return InstanceView(message)


def score(name: str, params: dict[str, Any] | None = None, **texts: str) -> float:
    """The score of named metric ``name`` on an instance of ``texts``."""
    metric = builtin().named[name]
    view = instance(**texts)
    params_ = Params(params or {}, metric.parameters, PATH)
    return asyncio.run(metric.evaluate_named(params_, view, CALL, PATH)).score
