"""Dataset summaries: overall and per category, FMEval's classification scores, NeMo's corpus
BLEU, NaN rows, and the AggregationOutput entries they give.

The classification dataset and its expected scores are those of fmeval's
test/unit/eval_algorithms/test_classification_accuracy.py (CLASSIFICATION_DATASET,
DATASET_SCORES, CATEGORY_SCORES), copied as data.
"""

from __future__ import annotations

import math
import os
from typing import Any

import pytest
import sacrebleu
from evald import api
from evald.jobs import outputs
from google.protobuf import json_format

FMEVAL_ROWS = [
    {"response": "4", "reference": "4", "category": "brownie"},
    {"response": "4", "reference": "4", "category": "vanilla cake"},
    {"response": "2", "reference": "1", "category": "vanilla cake"},
]


def named(name: str, params: dict[str, Any] | None = None) -> Any:
    metric = api.messages.Metric()
    metric.predefined_metric_spec.metric_spec_name = name
    json_format.ParseDict(params or {}, metric.predefined_metric_spec.metric_spec_parameters)
    return metric


def record(index: int, row: dict[str, Any], *scores: float | None) -> dict[str, Any]:
    """A result record as dataset jobs write it (a None score: an errored metric)."""
    error = {"code": "INVALID_ARGUMENT", "message": "x"}
    results = [
        {"metric": "m", "score": s, "explanation": None, "error": None if s is not None else error}
        for s in scores
    ]
    return {"row": index, "input": row, "results": results}


def test_classification_overall_and_per_category_as_fmeval() -> None:
    metric = named("fmeval/classification_accuracy", {"valid_labels": ["1", "2", "3", "4", "5"]})
    records = [
        record(i, row, s)
        for i, (row, s) in enumerate(zip(FMEVAL_ROWS, (1.0, 1.0, 0.0), strict=True))
    ]
    [summary] = outputs.summaries([metric], records)
    assert summary.mean == pytest.approx(2 / 3)
    assert summary.dataset_scores == pytest.approx(
        {
            "classification_accuracy_score": 2 / 3,
            "balanced_accuracy_score": 1 / 2,
            "precision_score": 2 / 3,
            "recall_score": 2 / 3,
        }
    )
    assert summary.categories is not None
    assert list(summary.categories) == ["brownie", "vanilla cake"]
    brownie, vanilla = summary.categories["brownie"], summary.categories["vanilla cake"]
    assert brownie.mean == 1.0
    assert set(brownie.dataset_scores.values()) == {1.0}
    assert vanilla.mean == 0.5
    assert vanilla.dataset_scores == pytest.approx(dict.fromkeys(brownie.dataset_scores, 0.5))


@pytest.mark.parametrize(
    ("average", "precision"),
    [("micro", 2 / 3), ("macro", 1 / 3), ("weighted", 2 / 3)],  # by hand: labels 1, 2, 4
)
def test_the_averaging_is_set_per_metric(average: str, precision: float) -> None:
    # Per label: 4 precision 1 (support 2), 1 precision 0 (support 1), 2 precision 0 (none).
    metric = named(
        "fmeval/classification_accuracy",
        {"valid_labels": ["1", "2", "4"], "multiclass_average_strategy": average},
    )
    records = [record(i, row, 1.0) for i, row in enumerate(FMEVAL_ROWS)]
    [summary] = outputs.summaries([metric], records)
    assert summary.classification is not None
    assert summary.classification["average"] == average
    assert summary.dataset_scores["precision_score"] == pytest.approx(precision)


def test_without_valid_labels_the_dataset_references_are_the_labels() -> None:
    # FMEval: the distinct targets {"positive", "negative"}; "negative positive" reads as
    # negative, so that row is wrong although its own reference appears in it.
    rows = [
        {"response": "negative positive", "reference": "positive"},
        {"response": "it is negative", "reference": "negative"},
    ]
    metric = named("fmeval/classification_accuracy")
    [summary] = outputs.summaries([metric], [record(i, r, 1.0) for i, r in enumerate(rows)])
    assert summary.dataset_scores["classification_accuracy_score"] == 0.5


def test_corpus_bleu_overall_and_per_category() -> None:
    rows = [
        {
            "response": "the cat sat on the mat",
            "reference": "the cat sat on a mat",
            "category": "a",
        },
        {"response": "a dog ran", "reference": "the dog ran away", "category": "b"},
        {"response": "hello there", "reference": "hello there friend", "category": "a"},
        {"response": "errs", "category": "b"},  # errored: left out of the corpus
    ]
    records = [record(i, r, 1.0) for i, r in enumerate(rows[:3])] + [record(3, rows[3], None)]
    [summary] = outputs.summaries([named("nemo/bleu")], records)

    def corpus(indices: list[int]) -> float:
        candidates = [rows[i]["response"] for i in indices]
        return float(
            sacrebleu.corpus_bleu(candidates, [[rows[i]["reference"] for i in indices]]).score
        )

    assert summary.dataset_scores["corpus_bleu"] == pytest.approx(corpus([0, 1, 2]))
    assert summary.categories is not None
    assert summary.categories["a"].dataset_scores["corpus_bleu"] == pytest.approx(corpus([0, 2]))
    assert summary.categories["b"].dataset_scores["corpus_bleu"] == pytest.approx(corpus([1]))
    assert summary.categories["b"].errors == 1

    output = outputs.aggregation_output(
        api.messages.EvaluationDataset(), [named("nemo/bleu")], [summary]
    )
    explained = [
        (r.aggregation_metric, r.pointwise_metric_result.explanation)
        for r in output.aggregation_results
    ]
    average, std, unset = (
        api.messages.Metric.AVERAGE,
        api.messages.Metric.STANDARD_DEVIATION,
        api.messages.Metric.AGGREGATION_METRIC_UNSPECIFIED,
    )
    assert explained == [
        (average, "nemo/bleu AVERAGE"),
        (std, "nemo/bleu STANDARD_DEVIATION"),
        (unset, "nemo/bleu corpus_bleu"),
        (average, "nemo/bleu AVERAGE category=a"),
        (std, "nemo/bleu STANDARD_DEVIATION category=a"),
        (unset, "nemo/bleu corpus_bleu category=a"),
        (average, "nemo/bleu AVERAGE category=b"),  # one score: no standard deviation
        (unset, "nemo/bleu corpus_bleu category=b"),
    ]


def test_nan_rows_are_counted_apart() -> None:
    rows = [{"response": "1", "reference": "1"}] * 3
    nan_row = record(1, rows[1], 0.0)
    nan_row["results"][0]["score"] = None  # a NaN score is stored as null, without an error
    records = [record(0, rows[0], 1.0), nan_row, record(2, rows[2], None)]
    [summary] = outputs.summaries([named("nemo/number-check")], records)
    assert (summary.count, summary.nan, summary.errors) == (1, 1, 1)
    assert summary.mean == 1.0
    assert summary.to_json()["nan"] == 1
    assert summary.categories is None  # no category column


def test_a_non_text_category_is_named_by_its_json() -> None:
    rows = [{"response": "a", "reference": "a", "category": 3}]
    [summary] = outputs.summaries([named("nemo/em")], [record(0, rows[0], 1.0)])
    assert summary.categories is not None
    assert list(summary.categories) == ["3"]
    assert not math.isnan(summary.categories["3"].sum)


def test_a_category_reads_labels_with_the_whole_dataset_references() -> None:
    # FMEval finds the labels once per dataset: in category "b", "negative positive" reads as
    # "negative" (a label of category "a"), so that row is wrong there too.
    rows = [
        {"response": "it is negative", "reference": "negative", "category": "a"},
        {"response": "negative positive", "reference": "positive", "category": "b"},
    ]
    metric = named("fmeval/classification_accuracy")
    [summary] = outputs.summaries([metric], [record(i, r, 1.0) for i, r in enumerate(rows)])
    assert summary.categories is not None
    assert summary.categories["b"].dataset_scores["classification_accuracy_score"] == 0.0


def test_outputs_are_created_as_the_umask_says(tmp_path: Any) -> None:
    previous = os.umask(0o022)
    try:
        outputs.write(str(tmp_path), ["{}"], {"rows": 1}, None)
        os.umask(0o027)
        outputs.write_files(str(tmp_path), {"report.html": "<p>"}, None)
    finally:
        os.umask(previous)
    modes = {path.name: path.stat().st_mode & 0o777 for path in tmp_path.iterdir()}
    assert modes == {"results.jsonl": 0o644, "aggregation.json": 0o644, "report.html": 0o640}
