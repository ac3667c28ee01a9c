"""``nemo/accuracy``: 1 when prediction and ground truth are the same string after trimming
whitespace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.answers import TEMPLATES, answer_pair, nemo_answer_params
from evald.metrics.params import Params


class Accuracy(ComputedNamed):
    """1 when prediction and ground truth are the same string after trimming whitespace."""

    name = "nemo/accuracy"
    family = "nemo"
    definition = (
        "Label accuracy: 1 when the prediction equals the ground truth after stripping "
        "leading and trailing whitespace (case-sensitive, no other normalisation), else 0. "
        "Averaged over a data set it is the accuracy."
    )
    parameters = TEMPLATES
    nemo_type = "accuracy"
    nemo_score_names = ("accuracy",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        return nemo_answer_params(params, path)

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = answer_pair(params, instance)
        return Outcome(1.0 if prediction.strip() == truth.strip() else 0.0)
