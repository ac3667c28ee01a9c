"""Precision, recall and balanced accuracy over a dataset of labels (FMEval's classification
metrics, with scikit-learn's definitions and its ``zero_division=0`` convention).

A dataset is *multiclass* when every label is a plain hashable value (a string), *multilabel*
when every label is a set of values. Averaging strategies:

* ``micro``: total true positives over total predicted (precision) or true (recall) labels;
* ``macro``: the unweighted mean of the per-label values, over every label seen in either list;
* ``weighted``: the per-label values weighted by support (how often the label is true);
* ``samples``: per-row values averaged over rows (multilabel only);
* ``binary``: the value for ``pos_label`` alone (multiclass with at most two labels);
* ``none``: the per-label values, by label.

A ratio with a zero denominator counts as 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Average = Literal["micro", "macro", "samples", "weighted", "binary", "none"]
AVERAGES: tuple[Average, ...] = ("micro", "macro", "samples", "weighted", "binary", "none")
Label = Hashable


@dataclass(frozen=True)
class _Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def support(self) -> int:
        return self.tp + self.fn


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _sets(y_true: Sequence[Any], y_pred: Sequence[Any]) -> tuple[list[frozenset[Any]], ...]:
    if len(y_true) != len(y_pred):
        raise ValueError(f"{len(y_true)} true labels but {len(y_pred)} predicted labels")
    multilabel = [_is_set(v) for v in (*y_true, *y_pred)]
    if any(multilabel) and not all(multilabel):
        raise ValueError("mix of single labels and label sets")
    if multilabel and multilabel[0]:
        return [frozenset(v) for v in y_true], [frozenset(v) for v in y_pred]
    return [frozenset([v]) for v in y_true], [frozenset([v]) for v in y_pred]


def _is_set(value: Any) -> bool:
    return isinstance(value, set | frozenset | list | tuple)


def is_multilabel(y_true: Sequence[Any]) -> bool:
    """Whether labels are label sets."""
    return bool(y_true) and _is_set(y_true[0])


def _sorted(labels: Iterable[Label]) -> list[Label]:
    try:
        return sorted(labels)  # type: ignore[type-var]
    except TypeError:
        return sorted(labels, key=repr)


def _counts(truth: list[frozenset[Any]], predicted: list[frozenset[Any]]) -> dict[Label, _Counts]:
    labels = _sorted(set().union(*truth, *predicted))
    tp = dict.fromkeys(labels, 0)
    fp = dict.fromkeys(labels, 0)
    fn = dict.fromkeys(labels, 0)
    for t, p in zip(truth, predicted, strict=True):
        for label in t & p:
            tp[label] += 1
        for label in p - t:
            fp[label] += 1
        for label in t - p:
            fn[label] += 1
    return {label: _Counts(tp[label], fp[label], fn[label]) for label in labels}


def _score(
    kind: Literal["precision", "recall"],
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    average: Average,
    pos_label: Label,
) -> float | dict[Label, float]:
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {', '.join(AVERAGES)}, got {average!r}")
    truth, predicted = _sets(y_true, y_pred)
    counts = _counts(truth, predicted)

    def one(c: _Counts) -> float:
        return _ratio(c.tp, c.tp + (c.fp if kind == "precision" else c.fn))

    if average == "none":
        return {label: one(c) for label, c in counts.items()}
    if average == "micro":
        total = _Counts(
            sum(c.tp for c in counts.values()),
            sum(c.fp for c in counts.values()),
            sum(c.fn for c in counts.values()),
        )
        return one(total)
    if average == "macro":
        return _ratio(sum(one(c) for c in counts.values()), len(counts))
    if average == "weighted":
        support = sum(c.support for c in counts.values())
        return _ratio(sum(one(c) * c.support for c in counts.values()), support)
    if average == "samples":
        if not is_multilabel(y_true):
            raise ValueError("samples averaging needs label sets (multilabel data)")
        per_row = [
            _ratio(len(t & p), len(p) if kind == "precision" else len(t))
            for t, p in zip(truth, predicted, strict=True)
        ]
        return _ratio(sum(per_row), len(per_row))
    # binary
    if is_multilabel(y_true):
        raise ValueError("binary averaging needs single labels, not label sets")
    if len(counts) > 2:
        raise ValueError(f"binary averaging needs at most two labels, got {len(counts)}")
    if len(counts) == 2 and pos_label not in counts:
        raise ValueError(f"pos_label {pos_label!r} is not one of the labels {list(counts)}")
    return one(counts.get(pos_label, _Counts()))


def precision(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    average: Average = "micro",
    pos_label: Label = "1",
) -> float | dict[Label, float]:
    """Precision: of the labels predicted, the share that are true."""
    return _score("precision", y_true, y_pred, average, pos_label)


def recall(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    average: Average = "micro",
    pos_label: Label = "1",
) -> float | dict[Label, float]:
    """Recall: of the true labels, the share that were predicted."""
    return _score("recall", y_true, y_pred, average, pos_label)


def balanced_accuracy(y_true: Sequence[Label], y_pred: Sequence[Label]) -> float:
    """The mean per-class recall over the classes that occur in ``y_true`` (multiclass only);
    0 for an empty dataset."""
    if is_multilabel(y_true):
        raise ValueError("balanced accuracy needs single labels, not label sets")
    truth, predicted = _sets(y_true, y_pred)
    counts = _counts(truth, predicted)
    recalls = [_ratio(c.tp, c.support) for c in counts.values() if c.support]
    return _ratio(sum(recalls), len(recalls))
