"""The answer-and-ground-truth templates NeMo's ``em``, ``f1`` and ``accuracy`` share."""

from __future__ import annotations

from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

TEMPLATES = (
    Parameter("ground_truth", "string", "Jinja2 template of the expected answer", "{{reference}}"),
    Parameter("prediction", "string", "Jinja2 template of the answer scored", "{{response}}"),
)


def answer_pair(params: Params, instance: InstanceView) -> tuple[str, str]:
    variables = instance.variables()
    truth = render(params.string("ground_truth"), variables, params.field("ground_truth"))
    prediction = render(params.string("prediction"), variables, params.field("prediction"))
    return prediction, truth
