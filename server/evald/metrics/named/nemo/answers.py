"""The answer-and-ground-truth templates NeMo's ``em``, ``f1`` and ``accuracy`` share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.api_params import OUTPUT_TEXT, translate
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

TEMPLATES = (
    Parameter("ground_truth", "string", "Jinja2 template of the expected answer", "{{reference}}"),
    Parameter("prediction", "string", "Jinja2 template of the answer scored", "{{response}}"),
)


NEMO_NAMES = {
    "ground_truth": "ground_truth",
    "reference": "ground_truth",
    "candidate": "prediction",
    "prediction": "prediction",
}
"""NeMo's names for the two templates (``ground_truth`` or ``reference``; ``candidate``)."""


def nemo_answer_params(params: Mapping[str, Any], path: str) -> dict[str, Any]:
    """NeMo's params of ``em``, ``f1`` and ``accuracy``: the ground truth is required, the
    prediction defaults to the model's output."""
    return translate(
        params, path, NEMO_NAMES, required=("ground_truth",), defaults={"prediction": OUTPUT_TEXT}
    )


def answer_pair(params: Params, instance: InstanceView) -> tuple[str, str]:
    variables = instance.variables()
    truth = render(params.string("ground_truth"), variables, params.field("ground_truth"))
    prediction = render(params.string("prediction"), variables, params.field("prediction"))
    return prediction, truth
