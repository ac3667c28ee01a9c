"""``fmeval/classification_accuracy``: 1 when the label read from the response equals the reference
label."""

from __future__ import annotations

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params

UNKNOWN_LABEL = "unknown"


class ClassificationAccuracy(ComputedNamed):
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

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
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
