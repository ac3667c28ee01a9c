"""A model-backed metric outside evald (a ``metric_modules`` module) for ``evald models list``."""

from __future__ import annotations

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params

from tests.unit.models.kinds import ECHO


class EchoScore(ComputedNamed):
    """Scores 1: declares the model it would run."""

    name = "example/echo_score"
    aliases = ("example/echo_score_v1",)
    family = "example"
    definition = "1 for every row"
    model_kind = ECHO
    default_model = "org/echo-model"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        return Outcome(1.0, "echo")
