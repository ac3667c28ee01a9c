"""``fmeval/factual_knowledge``: 1 when the response contains a target (case-insensitive),
else 0."""

from __future__ import annotations

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.fmeval.targets import DELIMITER, targets
from evald.metrics.params import Parameter, Params
from evald.metrics.text import quac


def _exact_inclusion(output: str, target: str) -> float:
    return float(target.lower() in output.lower())


class FactualKnowledge(ComputedNamed):
    """1 when the response contains a target (case-insensitive), else 0."""

    name = "fmeval/factual_knowledge"
    family = "fmeval"
    definition = (
        "Targets are the reference split on `<OR>` (an empty `target_output_delimiter` is "
        "refused). `exact_inclusion` (default): 1 when some target, lowercased, is a substring "
        "of the lowercased response (nothing stripped). `quasi_exact_inclusion`: 1 when some "
        "target, stripped and normalised as for `fmeval/quasi_exact_match`, is a substring of "
        "the response stripped and normalised the same way (a target that normalises to "
        "nothing, such as `The`, is always included). With `logical_operator` `AND` every "
        "target must be included instead of any."
    )
    parameters = (
        DELIMITER,
        Parameter(
            "score",
            "choice",
            "inclusion test",
            "exact_inclusion",
            ("exact_inclusion", "quasi_exact_inclusion"),
        ),
        Parameter(
            "logical_operator", "choice", "any target (OR) or all (AND)", "OR", ("OR", "AND")
        ),
    )

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        found = targets(params, instance.require("reference"))
        quasi = params.choice("score") == "quasi_exact_inclusion"
        include = quac.quasi_exact_inclusion if quasi else _exact_inclusion
        scores = [include(output, t) for t in found]
        held = min(scores) if params.choice("logical_operator") == "AND" else max(scores)
        return Outcome(held)
