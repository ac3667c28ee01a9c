"""A metric defined outside evald, as a user's module named by the ``metric_modules`` setting:
the catalog and server tests serve it."""

from __future__ import annotations

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params


class LengthRatio(ComputedNamed):
    """Response length over reference length, in characters, capped at ``cap``."""

    name = "example/length_ratio"
    family = "example"
    definition = (
        "len(response) / len(reference) in characters, at most the cap parameter "
        "(0 when the reference is empty)"
    )
    parameters = (Parameter("cap", "number", "the largest score", default=2.0),)
    score_range = "0 to cap"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        response, reference = instance.require("response"), instance.require("reference")
        cap = params.number("cap")
        ratio = len(response) / len(reference) if reference else 0.0
        return Outcome(min(ratio, cap), f"{len(response)} / {len(reference)} characters")
