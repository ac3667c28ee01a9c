"""FMEval QA accuracy: a response against the best of several acceptable answers.

The reference may hold several acceptable answers separated by ``target_output_delimiter``
(``<OR>`` by default); the score is the best over them.
"""

from __future__ import annotations

from collections.abc import Callable

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params

DELIMITER = Parameter(
    "target_output_delimiter", "string", "separates acceptable answers in the reference", "<OR>"
)


def targets(params: Params, reference: str) -> list[str]:
    """The reference split on ``target_output_delimiter``; an empty delimiter is refused, as
    FMEval's configurations refuse it (``str.split`` cannot split on nothing)."""
    delimiter = params.string("target_output_delimiter")
    if not delimiter:
        raise InvalidArgument(params.field("target_output_delimiter"), "must not be empty")
    return reference.split(delimiter)


class BestOverTargets(ComputedNamed):
    family = "fmeval"
    parameters = (DELIMITER,)
    compare: Callable[[str, str], float]

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        found = targets(params, instance.require("reference"))
        return Outcome(max(type(self).compare(output, t) for t in found))
