"""``fmeval/classification_accuracy``: 1 when the label read from the response equals the reference
label."""

from __future__ import annotations

from collections.abc import Sequence

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params

UNKNOWN_LABEL = "unknown"
AVERAGES = ("micro", "macro", "samples", "weighted", "binary", "none")


def convert_label(response: str, valid_labels: Sequence[str]) -> str:
    """FMEval's default converter: the first word of the response (split on the space character
    only) that, lowercased and stripped, is a valid label (also lowercased and stripped), in that
    lowercased, stripped form; ``unknown`` when none is."""
    valid = {label.lower().strip() for label in valid_labels}
    words = (word.lower().strip() for word in response.split(" "))
    return next((word for word in words if word in valid), UNKNOWN_LABEL)


class ClassificationAccuracy(ComputedNamed):
    """1 when the label read from the response equals the reference label."""

    name = "fmeval/classification_accuracy"
    family = "fmeval"
    definition = (
        "The predicted label is the first word of the response, split on the space character "
        "only, that lowercased and stripped is one of `valid_labels` (also lowercased and "
        "stripped), else `unknown` (FMEval's default converter). 1 when it equals the reference "
        "as is (not lowercased, not stripped: a reference `Positive` never matches), else 0. "
        "Without `valid_labels` the only valid label is the row's reference (FMEval takes every "
        "distinct reference of the dataset, which one row cannot see). "
        "`multiclass_average_strategy` sets the averaging of the dataset's precision and "
        "recall."
    )
    parameters = (
        Parameter("valid_labels", "string list", "the labels the response may contain", None),
        Parameter(
            "multiclass_average_strategy",
            "choice",
            "averaging of the dataset's precision and recall (scikit-learn's `average`)",
            "micro",
            AVERAGES,
        ),
    )

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        output = instance.require("response")
        target = instance.require("reference")
        params.choice("multiclass_average_strategy")  # checked here, used by the aggregation
        labels = params.strings("valid_labels")
        predicted = convert_label(output, [target] if labels is None else labels)
        return Outcome(1.0 if predicted == target else 0.0, f"predicted label: {predicted!r}")
