"""FMEval QA accuracy: a response against the best of several acceptable answers.

The reference may hold several acceptable answers separated by ``target_output_delimiter``
(``<OR>`` by default); the score is the best over them.
"""

from __future__ import annotations

from collections.abc import Callable

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params

DELIMITER = Parameter(
    "target_output_delimiter", "string", "separates acceptable answers in the reference", "<OR>"
)


class BestOverTargets(ComputedNamed):
    family = "fmeval"
    parameters = (DELIMITER,)
    compare: Callable[[str, str], float]

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        delimiter = params.string("target_output_delimiter")
        reference = instance.require("reference")
        targets = reference.split(delimiter) if delimiter else [reference]
        return Outcome(max(type(self).compare(output, t) for t in targets))
