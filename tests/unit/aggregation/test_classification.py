"""Precision, recall and balanced accuracy against scikit-learn (a dev-only dependency)."""

from __future__ import annotations

from typing import Any

import pytest
from evald.aggregation import balanced_accuracy, precision, recall
from evald.aggregation.summary import classification_report, summarize
from hypothesis import given, settings
from hypothesis import strategies as st

sklearn_metrics = pytest.importorskip("sklearn.metrics")
preprocessing = pytest.importorskip("sklearn.preprocessing")

MULTICLASS = [
    (["cat", "dog", "cat", "bird"], ["cat", "cat", "cat", "dog"]),
    (["a", "b", "c", "a", "b", "c"], ["a", "c", "b", "a", "a", "c"]),
    (["1", "0", "1", "1", "0"], ["1", "1", "0", "1", "0"]),
    (["x", "x", "x"], ["x", "y", "z"]),  # labels only predicted, never true
]
BINARY = [
    (["1", "0", "1", "1", "0"], ["1", "1", "0", "1", "0"], "1"),
    (["yes", "no", "no"], ["no", "no", "no"], "yes"),
    (["yes", "yes"], ["yes", "yes"], "yes"),
]
MULTILABEL = [
    ([{"a", "b"}, {"c"}, {"a"}], [{"a"}, {"b", "c"}, {"a", "c"}]),
    ([{"x"}, set(), {"x", "y"}], [{"x", "y"}, {"y"}, set()]),
]
AVERAGES: list[Any] = ["micro", "macro", "weighted"]


def sk(function: str, y_true: Any, y_pred: Any, **kw: Any) -> Any:
    return getattr(sklearn_metrics, function)(y_true, y_pred, zero_division=0, **kw)


@pytest.mark.parametrize(("y_true", "y_pred"), MULTICLASS)
@pytest.mark.parametrize("average", AVERAGES)
def test_multiclass(y_true: list[str], y_pred: list[str], average: Any) -> None:
    assert precision(y_true, y_pred, average) == pytest.approx(
        sk("precision_score", y_true, y_pred, average=average)
    )
    assert recall(y_true, y_pred, average) == pytest.approx(
        sk("recall_score", y_true, y_pred, average=average)
    )


@pytest.mark.parametrize(("y_true", "y_pred"), MULTICLASS)
def test_none_gives_per_label_values(y_true: list[str], y_pred: list[str]) -> None:
    labels = sorted(set(y_true) | set(y_pred))
    for ours, name in ((precision, "precision_score"), (recall, "recall_score")):
        got = ours(y_true, y_pred, "none")
        expected = sk(name, y_true, y_pred, average=None, labels=labels)
        assert isinstance(got, dict)
        assert list(got) == labels
        assert list(got.values()) == pytest.approx(list(expected))


@pytest.mark.parametrize(("y_true", "y_pred", "pos_label"), BINARY)
def test_binary(y_true: list[str], y_pred: list[str], pos_label: str) -> None:
    labels = sorted(set(y_true) | set(y_pred))
    kw: dict[str, Any] = {"average": "binary", "pos_label": pos_label}
    if len(labels) < 2:
        kw["labels"] = labels
    assert precision(y_true, y_pred, "binary", pos_label) == pytest.approx(
        sk("precision_score", y_true, y_pred, **kw)
    )
    assert recall(y_true, y_pred, "binary", pos_label) == pytest.approx(
        sk("recall_score", y_true, y_pred, **kw)
    )


def test_binary_and_samples_refuse_what_sklearn_refuses() -> None:
    with pytest.raises(ValueError, match="two labels"):
        precision(["a", "b", "c"], ["a", "b", "c"], "binary")
    with pytest.raises(ValueError, match="pos_label"):
        recall(["a", "b"], ["a", "b"], "binary", pos_label="z")
    with pytest.raises(ValueError, match="multilabel"):
        precision(["a", "b"], ["a", "b"], "samples")


@pytest.mark.parametrize(("y_true", "y_pred"), MULTILABEL)
@pytest.mark.parametrize("average", [*AVERAGES, "samples"])
def test_multilabel(y_true: list[set[str]], y_pred: list[set[str]], average: Any) -> None:
    binarizer = preprocessing.MultiLabelBinarizer().fit(y_true + y_pred)
    t, p = binarizer.transform(y_true), binarizer.transform(y_pred)
    assert precision(y_true, y_pred, average) == pytest.approx(
        sk("precision_score", t, p, average=average)
    )
    assert recall(y_true, y_pred, average) == pytest.approx(
        sk("recall_score", t, p, average=average)
    )


@pytest.mark.parametrize(("y_true", "y_pred"), MULTICLASS)
def test_balanced_accuracy(y_true: list[str], y_pred: list[str]) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns about labels only predicted
        expected = sklearn_metrics.balanced_accuracy_score(y_true, y_pred)
    assert balanced_accuracy(y_true, y_pred) == pytest.approx(expected)


labels = st.sampled_from(["a", "b", "c", "d"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=1, max_size=40))
def test_random_multiclass(pairs: list[tuple[str, str]]) -> None:
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    for average in AVERAGES:
        assert precision(y_true, y_pred, average) == pytest.approx(
            sk("precision_score", y_true, y_pred, average=average)
        )
        assert recall(y_true, y_pred, average) == pytest.approx(
            sk("recall_score", y_true, y_pred, average=average)
        )


def test_report_lists_what_applies() -> None:
    report = classification_report(["1", "0", "1"], ["1", "1", "1"], "1")
    assert set(report["precision"]) == {"micro", "macro", "weighted", "binary", "none"}
    assert report["precision"]["binary"] == pytest.approx(2 / 3)
    assert report["recall"]["binary"] == 1.0
    assert report["balanced_accuracy"] == pytest.approx(0.5)


def test_errors_are_kept_apart() -> None:
    summary = summarize("m", [1.0, None, 0.0, None], ["AVERAGE"])
    assert (summary.count, summary.errors, summary.mean, summary.sum) == (2, 2, 0.5, 1.0)
