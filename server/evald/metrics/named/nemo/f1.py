"""``nemo/f1``: SQuAD token F1 of the prediction against the ground truth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.answers import TEMPLATES, answer_pair, nemo_answer_params
from evald.metrics.params import Params
from evald.metrics.text.squad import token_f1


class F1(ComputedNamed):
    """SQuAD token F1 of the prediction against the ground truth."""

    name = "nemo/f1"
    family = "nemo"
    definition = (
        "Token F1 (SQuAD): both sides normalised as for `nemo/em` and split on whitespace; "
        "overlap counts repeated tokens (multisets); precision = overlap / prediction tokens, "
        "recall = overlap / truth tokens, F1 their harmonic mean. If either side has no "
        "tokens, 1 when both have none, else 0."
    )
    parameters = TEMPLATES
    nemo_type = "f1"
    nemo_score_names = ("f1",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        return nemo_answer_params(params, path)

    score_range = "0..1"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = answer_pair(params, instance)
        return Outcome(token_f1(prediction, truth))
