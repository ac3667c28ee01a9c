"""NeMo ``em``, ``f1`` and ``accuracy`` between a rendered prediction and ground truth."""

from __future__ import annotations

from evald.metric_api.base import Outcome
from evald.metric_api.instance import InstanceView
from evald.predefined.base import ComputedPredefined, Parameter, Params
from evald.predefined.templates import render
from evald.predefined.text import normalize, token_f1

TEMPLATES = (
    Parameter("ground_truth", "string", "Jinja2 template of the expected answer", "{{reference}}"),
    Parameter("prediction", "string", "Jinja2 template of the answer scored", "{{response}}"),
)


def _pair(params: Params, instance: InstanceView) -> tuple[str, str]:
    variables = instance.variables()
    truth = render(params.string("ground_truth"), variables, params.field("ground_truth"))
    prediction = render(params.string("prediction"), variables, params.field("prediction"))
    return prediction, truth


class ExactMatch(ComputedPredefined):
    """1 when the normalised prediction equals the normalised ground truth."""

    name = "nemo/em"
    family = "nemo"
    definition = (
        "Exact match after SQuAD normalisation of both sides: lowercase, remove ASCII "
        "punctuation, remove the articles a/an/the, collapse whitespace. 1 or 0."
    )
    parameters = TEMPLATES

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = _pair(params, instance)
        return Outcome(1.0 if normalize(prediction) == normalize(truth) else 0.0)


class F1(ComputedPredefined):
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
    score_range = "0..1"

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = _pair(params, instance)
        return Outcome(token_f1(prediction, truth))


class Accuracy(ComputedPredefined):
    """1 when prediction and ground truth are the same string after trimming whitespace."""

    name = "nemo/accuracy"
    family = "nemo"
    definition = (
        "Label accuracy: 1 when the prediction equals the ground truth after stripping "
        "leading and trailing whitespace (case-sensitive, no other normalisation), else 0. "
        "Averaged over a data set it is the accuracy."
    )
    parameters = TEMPLATES

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        prediction, truth = _pair(params, instance)
        return Outcome(1.0 if prediction.strip() == truth.strip() else 0.0)
