"""``nemo/em``: 1 when the normalised prediction equals the normalised ground truth."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.answers import TEMPLATES, answer_pair, nemo_answer_params
from evald.metrics.params import Params
from evald.metrics.text.squad import normalize


class ExactMatch(ComputedNamed):
    """1 when the normalised prediction equals the normalised ground truth."""

    name = "nemo/em"
    family = "nemo"
    definition = (
        "Exact match after SQuAD normalisation of both sides: lowercase, remove ASCII "
        "punctuation, remove the articles a/an/the, collapse whitespace. 1 or 0."
    )
    parameters = TEMPLATES
    nemo_type = "em"
    nemo_score_names = ("em",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        return nemo_answer_params(params, path)

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = answer_pair(params, instance)
        return Outcome(1.0 if normalize(prediction) == normalize(truth) else 0.0)
