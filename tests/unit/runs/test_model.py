"""Rows of every record shape in one model, and the rows query."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.runs import imports
from evald.runs.model import row_of, text
from evald.runs.routes import row_query
from evald.runs.service import RowQuery

VERTEX = {
    "row": 2,
    "input": {"prompt": {"text": "Q"}, "response": "R", "reference": "F", "category": "geo"},
    "results": [
        {"metric": "exact_match", "score": 1.0, "explanation": None, "error": None},
        {"metric": "judge", "score": None, "explanation": "hm", "error": None, "raw": "x"},
        {"metric": "bleu", "score": None, "explanation": None,
         "error": {"code": "INVALID_ARGUMENT", "message": "no reference"}},
    ],
}  # fmt: skip
NEMO = {
    "row": 0,
    "task": "t",
    "index": 0,
    "item": {"question": "Q", "answer": "A"},
    "sample": {"output_text": "out", "response": {"choices": []}},
    "scores": {"accuracy": {"accuracy": 1.0}, "bleu": {"sentence": None, "corpus": 0.5}},
    "errors": {"judge": {"code": "UNAVAILABLE", "message": "down"}},
}


def test_vertex_record() -> None:
    row = row_of(VERTEX, 0)
    assert (row.index, row.prompt, row.response, row.reference, row.category) == (
        2,
        "Q",
        "R",
        "F",
        "geo",
    )
    assert row.scores["exact_match"] == 1.0
    assert math.isnan(row.scores["judge"] or 0.0)  # scored NaN: kept apart from errors
    assert row.scores["bleu"] is None
    assert list(row.errors()) == ["bleu"]
    assert row.results[1]["raw"] == "x"  # extra fields of a result are kept


def test_nemo_record() -> None:
    row = row_of(NEMO, 5)
    assert (row.prompt, row.response, row.reference) == ("Q", "out", "A")
    assert row.scores["accuracy.accuracy"] == 1.0
    assert row.scores["bleu.corpus"] == 0.5
    assert math.isnan(row.scores["bleu.sentence"] or 0.0)
    assert row.scores["judge"] is None
    assert row.errors() == {"judge": {"code": "UNAVAILABLE", "message": "down"}}


TEXTS = [
    ("plain", "plain"),
    ({"text": "t"}, "t"),
    ([{"role": "user", "content": "a"}, {"role": "model", "content": "b"}], "a\nb"),
    ({"x": 1}, '{"x": 1}'),
    (None, None),
    (3, "3"),
]


@pytest.mark.parametrize(("value", "expected"), TEXTS)
def test_text(value: Any, expected: str | None) -> None:
    assert text(value) == expected


def lines(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


PARSE_ERRORS = [
    ("", "results.jsonl", "holds no result rows"),
    ("{not json\n", "results.jsonl line 1", "not JSON"),
    ("[1]\n", "results.jsonl line 1", "not a JSON object"),
    (lines({"row": 0, "x": 1}), "results.jsonl line 1", "neither"),
    (lines({**VERTEX, "row": 1}), "results.jsonl", "indices are not 0..n-1"),
]


@pytest.mark.parametrize(("results", "field", "message"), PARSE_ERRORS)
def test_parse_refuses(results: str, field: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        imports.parse("n", results, None)
    status = str(caught.value.to_status())
    assert field in status
    assert message in status


def test_parse_orders_rows_and_reads_aggregation() -> None:
    records = [{**VERTEX, "row": 1}, {**VERTEX, "row": 0}]
    parsed = imports.parse("  mine ", lines(*records), '{"rows": 2}')
    assert parsed.name == "mine"
    assert [json.loads(line)["row"] for line in parsed.lines] == [0, 1]
    assert parsed.metrics == ["exact_match", "judge", "bleu"]
    assert parsed.aggregation == {"rows": 2}
    with pytest.raises(InvalidArgument, match=r"aggregation\.json"):
        imports.parse("n", lines(VERTEX | {"row": 0}), "[")


QUERIES = [
    ({}, RowQuery()),
    ({"has_error": "true", "q": "Paris"}, RowQuery(has_error=True, text="Paris")),
    (
        {"metric": "m", "min": "0.5", "max": "1", "sort": "-metric", "offset": "25", "limit": "25"},
        RowQuery(metric="m", min=0.5, max=1.0, sort="metric", descending=True, offset=25, limit=25),
    ),
    ({"sort": "-error"}, RowQuery(sort="error", descending=True)),
]


@pytest.mark.parametrize(("query", "expected"), QUERIES)
def test_row_query(query: dict[str, str], expected: RowQuery) -> None:
    assert row_query(query) == expected


BAD_QUERIES = [
    ({"has_error": "yes"}, "has_error"),
    ({"min": "x", "metric": "m"}, "min"),
    ({"max": "nan", "metric": "m"}, "max"),
    ({"min": "0.5"}, "metric"),
    ({"sort": "metric"}, "metric"),
    ({"sort": "prompt"}, "sort"),
    ({"limit": "0"}, "limit"),
    ({"limit": "501"}, "limit"),
    ({"offset": "-1"}, "offset"),
]


@pytest.mark.parametrize(("query", "field"), BAD_QUERIES)
def test_bad_row_query(query: dict[str, str], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        row_query(query)
    assert caught.value.to_status().details  # the field is named in a BadRequest detail
    assert field in str(caught.value.to_status())


def make_rows() -> list[Any]:
    def record(i: int, score: float | None, response: str) -> dict[str, Any]:
        error = None if score is not None else {"code": "INTERNAL", "message": "x"}
        result = {"metric": "m", "score": score, "explanation": None, "error": error}
        return {"row": i, "input": {"prompt": f"q{i}", "response": response}, "results": [result]}

    data = [(0.2, "Paris"), (None, "Lyon"), (0.9, "paris!"), (0.5, "Nice")]
    return [row_of(record(i, s, r), i) for i, (s, r) in enumerate(data)]


FILTERS = [
    (RowQuery(), [0, 1, 2, 3]),
    (RowQuery(has_error=True), [1]),
    (RowQuery(has_error=False), [0, 2, 3]),
    (RowQuery(text="PARIS"), [0, 2]),
    (RowQuery(metric="m", min=0.3), [2, 3]),
    (RowQuery(metric="m", max=0.5), [0, 3]),
    (RowQuery(sort="metric", metric="m"), [0, 3, 2, 1]),
    (RowQuery(sort="metric", metric="m", descending=True), [2, 3, 0, 1]),
    (RowQuery(sort="error", descending=True), [1, 0, 2, 3]),
    (RowQuery(sort="row", descending=True), [3, 2, 1, 0]),
]


@pytest.mark.parametrize(("query", "indices"), FILTERS)
def test_filters_and_sorts(query: RowQuery, indices: list[int]) -> None:
    assert [row.index for row in query.apply(make_rows())] == indices
