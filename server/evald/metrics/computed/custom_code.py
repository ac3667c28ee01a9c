"""``custom_code_execution_spec``: the caller's ``def evaluate(instance)`` in the sandbox.

``instance`` is the EvaluationInstance as a JSON object with proto field names, e.g.
``instance['response']['text']``. The function returns a number, or a dict with a numeric
``score`` and optionally an ``explanation``.
"""

from __future__ import annotations

from typing import Any

from evald.call import Call
from evald.errors import InvalidArgument
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView

FUNCTION = "evaluate"


class CustomCode(Metric):
    """Runs ``evaluation_function`` through the server's sandbox."""

    spec_fields = ("custom_code_execution_spec",)

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        field = f"{path}.evaluation_function"
        if not spec.HasField("evaluation_function") or not spec.evaluation_function.strip():
            raise InvalidArgument(field, "the source of def evaluate(instance) is required")
        result = await call.sandbox.run(
            spec.evaluation_function, instance.as_json, function=FUNCTION, field=field
        )
        return Outcome(result.score, result.explanation)
