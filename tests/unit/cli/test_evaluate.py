"""``evald evaluate``'s pieces: metric names to entry points, failed runs, float32 scores,
errors grouped by message, the summary's aggregation columns."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from evald.aggregation.summary import summarize
from evald.cli import evaluate, report
from evald.cli.evaluate import UsageError, parse_metric
from evald.jobs.rows import float32_value
from hypothesis import given
from hypothesis import strategies as st

METRIC_CASES = [
    # (--metric, which oneof of Metric is sent, legacy input or None, needs a judge)
    ("bleu", "bleu_spec", None, False),
    ("rouge:rougeL", "rouge_spec", None, False),
    ("bleu_input", "pointwise_metric_spec", "bleu_input", False),
    ("fluency", "pointwise_metric_spec", "fluency_input", True),
    ("safety_input", "pointwise_metric_spec", "safety_input", True),
    ("pairwise_summarization_quality", "pairwise_metric_spec",
     "pairwise_summarization_quality_input", True),
    ("tool_name_match", "pointwise_metric_spec", "tool_name_match_input", False),
    ("comet", "predefined_metric_spec", None, False),
    ("comet_input", "pointwise_metric_spec", "comet_input", False),
    ("general_quality_v1", "predefined_metric_spec", None, True),
    ("vertex/general_quality_v1", "predefined_metric_spec", None, True),
    ("safety_v1", "predefined_metric_spec", None, True),
    ("nemo/f1", "predefined_metric_spec", None, False),
    ("fmeval/classification_accuracy", "predefined_metric_spec", None, False),
]  # fmt: skip


@pytest.mark.parametrize(("text", "oneof", "input_field", "judge"), METRIC_CASES)
def test_every_kind_of_metric_name(
    text: str, oneof: str, input_field: str | None, judge: bool
) -> None:
    choice = parse_metric(text, ["PERCENTILE_P90"])
    assert choice.metric.WhichOneof("metric_spec") == oneof
    assert choice.input_field == input_field
    assert choice.needs_judge is judge
    assert list(choice.metric.aggregation_metrics) == [
        choice.metric.AggregationMetric.Value("PERCENTILE_P90")
    ]


def test_named_metric_parameters_and_input_specs() -> None:
    named = parse_metric('general_quality_v1:{"guidelines": ["short"]}')
    assert named.metric.predefined_metric_spec.metric_spec_name == "general_quality_v1"
    assert named.options == {"parameters": {"guidelines": ["short"]}}
    rouge = parse_metric("rouge_input:rougeLsum")
    assert rouge.spec.rouge_type == "rougeLsum"
    qa = parse_metric('question_answering_quality:{"use_reference": true}')
    assert qa.spec.use_reference is True


@pytest.mark.parametrize(
    ("text", "server"),
    [("nosuch", False), ("vertex/nemo/f1", False), ("acme/metric", False), ("vertex/x", True),
     ("pointwise_metric", False), ("bleu:x", False), ("nemo/f1:[]", False)],
)  # fmt: skip
def test_names_that_reach_nothing(text: str, server: bool) -> None:
    with pytest.raises(UsageError):
        parse_metric(text, server=server)


def test_a_server_may_serve_more_named_metrics() -> None:
    choice = parse_metric("acme/metric", server=True)
    assert choice.metric.predefined_metric_spec.metric_spec_name == "acme/metric"


def summary(errors: int, scored: int) -> Any:
    return summarize("m", [None] * errors + [1.0] * scored)


@pytest.mark.parametrize(
    ("summaries", "total", "failed", "rate", "problems"),
    [
        ([summary(0, 4)], 4, 0, 0.0, 0),
        ([summary(1, 3)], 4, 1, 0.25, 0),
        ([summary(1, 3)], 4, 1, 0.2, 1),
        ([summary(4, 0)], 4, 4, 1.0, 1),  # every row of the metric: failed whatever the rate
        ([summary(4, 0), summary(0, 4)], 4, 4, 0.0, 2),
        ([], 0, 0, 0.0, 0),
    ],
)
def test_run_problems(
    summaries: list[Any], total: int, failed: int, rate: float, problems: int
) -> None:
    assert len(evaluate.run_problems(summaries, total, failed, rate)) == problems


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_value_reads_back_as_the_same_float32(value: float) -> None:
    shown = float32_value(value)
    assert struct.pack("<f", float(repr(shown))) == struct.pack("<f", value)
    assert len(repr(shown)) <= len(repr(value))


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0.800000011920929, 0.8), (0.1, 0.1), (1.0, 1.0), (0.0, 0.0), (1 / 3, 0.33333334),
     (float("inf"), float("inf"))],
)  # fmt: skip
def test_float32_value_examples(value: float, shown: float) -> None:
    assert repr(float32_value(value)) == repr(shown)


def record(row: int, *errors: tuple[str, str] | None) -> dict[str, Any]:
    results = [
        {
            "metric": f"m{i}",
            "score": None if e else 1.0,
            "explanation": None,
            "error": None if e is None else {"code": e[0], "message": e[1]},
        }
        for i, e in enumerate(errors)
    ]
    return {"row": row, "input": {"id": f"x{row}", "response": "r"}, "results": results}


def test_errors_grouped_by_message() -> None:
    missing = ("INVALID_ARGUMENT", "rows[{}].response: missing")
    records = [
        record(0, None, None),
        record(1, ("INVALID_ARGUMENT", "rows[1].response: missing"), ("UNAVAILABLE", "down")),
        record(2, ("INVALID_ARGUMENT", "rows[2].response: missing"), None),
        record(3, None, ("INVALID_ARGUMENT", "rows[3].response: missing")),
    ]
    groups = report.error_groups(records)
    assert groups == [
        {"code": missing[0], "message": "rows[i].response: missing", "count": 3,
         "metrics": ["m0", "m1"], "first_rows": [1, 2, 3]},
        {"code": "UNAVAILABLE", "message": "down", "count": 1, "metrics": ["m1"],
         "first_rows": [1]},
    ]  # fmt: skip
    assert report.error_text(groups).splitlines() == [
        "errors: 4 (2 distinct)",
        "  3 x INVALID_ARGUMENT [m0, m1] first row 1: rows[i].response: missing",
        "  1 x UNAVAILABLE [m1] first row 1: down",
    ]
    assert report.extra_columns(records) == ["id"]


def test_requested_aggregations_get_columns() -> None:
    metric = summarize("m", [0.1, 0.5, 0.9], ["AVERAGE", "PERCENTILE_P90", "MODE"]).to_json()
    aggregation = {"rows": 3, "rows_failed": 0, "metrics": [metric]}
    header, _, line = report.summary_table(aggregation).splitlines()
    assert header.split()[-2:] == ["p90", "mode"]
    assert line.split()[-2] == f"{metric['aggregations']['PERCENTILE_P90']:.4f}"
    page = report.html_report("t", aggregation, [])
    assert "<th>p90</th>" in page
