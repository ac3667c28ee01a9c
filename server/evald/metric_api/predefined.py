"""``predefined_metric_spec``: a metric from :mod:`evald.predefined` by ``metric_spec_name``."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from evald.call import Call
from evald.errors import InvalidArgument
from evald.metric_api.base import Outcome, SpecEvaluator
from evald.metric_api.instance import InstanceView


class PredefinedSpec(SpecEvaluator):
    """Looks the name up in the predefined registry and runs that metric."""

    spec_fields = ("predefined_metric_spec",)

    async def evaluate(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        from evald.predefined.base import Params
        from evald.predefined.registry import registry

        metrics = registry()
        metric = metrics.get(spec.metric_spec_name)
        if metric is None:
            raise InvalidArgument(
                f"{path}.metric_spec_name",
                f"unknown predefined metric {spec.metric_spec_name!r}; this server has: "
                + ", ".join(metrics),
            )
        values = json_format.MessageToDict(spec.metric_spec_parameters)
        params = Params(values, metric.parameters, f"{path}.metric_spec_parameters")
        return await metric.evaluate(params, instance, call, path)
