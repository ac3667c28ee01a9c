"""``fmeval/factual_knowledge``: 1 when the response contains a target (case-insensitive),
else 0."""

from __future__ import annotations

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.fmeval.targets import DELIMITER
from evald.metrics.params import Parameter, Params
from evald.metrics.text.squad import normalize


class FactualKnowledge(ComputedNamed):
    """1 when the response contains a target (case-insensitive), else 0."""

    name = "fmeval/factual_knowledge"
    family = "fmeval"
    definition = (
        "Targets are the reference split on `<OR>`. `exact_inclusion` (default): 1 when some "
        "target, lowercased, is a substring of the lowercased response. "
        "`quasi_exact_inclusion`: the same after FMEval's normalisation of both. With "
        "`logical_operator` `AND` every target must be included instead of any."
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
        reference = instance.require("reference")
        delimiter = params.string("target_output_delimiter")
        targets = reference.split(delimiter) if delimiter else [reference]
        prepare = normalize if params.choice("score") == "quasi_exact_inclusion" else str.lower
        text = prepare(output)
        found = [prepare(t) in text for t in targets]
        held = all(found) if params.choice("logical_operator") == "AND" else any(found)
        return Outcome(1.0 if held else 0.0)
