"""FMEval ``factual_knowledge`` and ``classification_accuracy``."""

from __future__ import annotations

from evald.metric_api.base import Outcome
from evald.metric_api.instance import InstanceView
from evald.predefined.base import ComputedPredefined, Parameter, Params
from evald.predefined.fmeval_qa import DELIMITER
from evald.predefined.text import normalize

UNKNOWN_LABEL = "unknown"


class FactualKnowledge(ComputedPredefined):
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

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        reference = instance.require("reference")
        delimiter = params.string("target_output_delimiter")
        targets = reference.split(delimiter) if delimiter else [reference]
        prepare = normalize if params.choice("score") == "quasi_exact_inclusion" else str.lower
        text = prepare(output)
        found = [prepare(t) in text for t in targets]
        held = all(found) if params.choice("logical_operator") == "AND" else any(found)
        return Outcome(1.0 if held else 0.0)


class ClassificationAccuracy(ComputedPredefined):
    """1 when the label read from the response equals the reference label."""

    name = "fmeval/classification_accuracy"
    family = "fmeval"
    definition = (
        "Labels compare lowercased and stripped. With `valid_labels`, the predicted label is "
        "the first whitespace-separated word of the response that is a valid label (else "
        "`unknown`), as FMEval's default converter does; without, it is the whole response. "
        "1 when it equals the reference label, else 0."
    )
    parameters = (
        Parameter("valid_labels", "string list", "the labels the response may contain", None),
    )

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        target = instance.require("reference").lower().strip()
        labels = params.strings("valid_labels")
        if labels is None:
            predicted = output.lower().strip()
        else:
            valid = {label.lower().strip() for label in labels}
            words = (w.lower().strip() for w in output.split())
            predicted = next((w for w in words if w in valid), UNKNOWN_LABEL)
        return Outcome(1.0 if predicted == target else 0.0, f"predicted label: {predicted!r}")
