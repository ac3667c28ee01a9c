"""The rows of a run, whatever wrote them, in one shape.

Three record shapes arrive:

* ``evald evaluate`` and Vertex dataset jobs (:func:`evald.jobs.rows.score_row`):
  ``{"row", "input": {prompt, response, reference, category...}, "results": [{"metric",
  "score", "explanation", "error"}]}``;
* NeMo evaluation jobs (:meth:`evald.nemo.evaluation.Evaluation.score`): ``{"row", "task",
  "item", "sample", "scores": {metric: {score name: value}}, "errors": {metric: error}}``, whose
  metrics are named ``<metric>.<score name>``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PROMPT_KEYS = ("prompt", "question", "input", "instruction")
RESPONSE_KEYS = ("response", "output_text", "output", "prediction")
SAMPLE_KEYS = ("output_text", "response", "output")
"""A NeMo sample's output: its text before the model's raw answer."""
REFERENCE_KEYS = ("reference", "ideal_response", "answer", "target", "expected")


@dataclass
class Row:
    """One scored row of a run."""

    index: int
    prompt: str | None
    response: str | None
    reference: str | None
    category: str | None
    scores: dict[str, float | None]
    """Each metric's score: a float (NaN when the metric scored NaN), None when it erred."""
    results: list[dict[str, Any]]
    """Each metric's full result: ``metric``, ``score``, ``explanation``, ``error`` and whatever
    else the record holds (rubric verdicts, raw judge outputs)."""
    record: dict[str, Any] = field(repr=False)
    """The record as stored."""

    def errors(self) -> dict[str, dict[str, Any]]:
        """The error of each metric that erred on this row."""
        return {r["metric"]: r["error"] for r in self.results if r.get("error") is not None}

    def search_text(self) -> str:
        """What a text search looks in (lower case): prompt, response and reference."""
        return "\n".join(t for t in (self.prompt, self.response, self.reference) if t).lower()


def text(value: Any) -> str | None:
    """A column's value as text: strings as they are, ``{"text": ...}`` (an InstanceData) its
    text, chat messages their contents, anything else as JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        if isinstance(value.get("content"), str):
            return str(value["content"])
    if isinstance(value, list) and all(isinstance(m, Mapping) for m in value):
        parts = [text(m.get("content")) for m in value]
        if all(p is not None for p in parts):
            return "\n".join(p for p in parts if p is not None)
    return json.dumps(value, ensure_ascii=False)


def _first(source: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        if source.get(key) is not None:
            return text(source[key])
    return None


def _score(value: Any) -> float:
    return math.nan if value is None else float(value)


def row_of(record: dict[str, Any], position: int) -> Row:
    """The :class:`Row` of one stored record (``position``: its place, when it has no index)."""
    index = record.get("row", position)
    index = index if isinstance(index, int) else position
    if "results" in record:
        return _vertex_row(record, index)
    if "scores" in record or "errors" in record:
        return _nemo_row(record, index)
    raise ValueError(f"row {position}: neither an evald result nor a NeMo job record")


def _vertex_row(record: dict[str, Any], index: int) -> Row:
    source = record.get("input") or {}
    if not isinstance(source, Mapping):
        source = {}
    scores: dict[str, float | None] = {}
    results = []
    for i, result in enumerate(record.get("results") or []):
        if not isinstance(result, Mapping):
            continue
        name = str(result.get("metric") or f"metric{i + 1}")
        item = dict(result)
        item["metric"] = name
        item.setdefault("error", None)
        scores[name] = None if item["error"] is not None else _score(item.get("score"))
        results.append(item)
    category = source.get("category")
    return Row(
        index,
        _first(source, PROMPT_KEYS),
        _first(source, RESPONSE_KEYS),
        _first(source, REFERENCE_KEYS),
        None if category is None else text(category),
        scores,
        results,
        record,
    )


def _nemo_row(record: dict[str, Any], index: int) -> Row:
    item = record.get("item") or {}
    sample = record.get("sample") or {}
    item = item if isinstance(item, Mapping) else {}
    sample = sample if isinstance(sample, Mapping) else {}
    scores: dict[str, float | None] = {}
    results: list[dict[str, Any]] = []
    for metric, named in (record.get("scores") or {}).items():
        for name, value in (named or {}).items():
            label = f"{metric}.{name}"
            scores[label] = _score(value)
            results.append({"metric": label, "score": value, "explanation": None, "error": None})
    for metric, error in (record.get("errors") or {}).items():
        scores[str(metric)] = None
        results.append({"metric": str(metric), "score": None, "explanation": None, "error": error})
    response = _first(sample, SAMPLE_KEYS) if sample else None
    category = item.get("category")
    return Row(
        index,
        _first(item, PROMPT_KEYS),
        response if response is not None else _first(item, RESPONSE_KEYS),
        _first(item, REFERENCE_KEYS),
        None if category is None else text(category),
        scores,
        results,
        record,
    )


def metric_names(rows: list[Row]) -> list[str]:
    """Every metric of ``rows``, in the order they first appear."""
    seen: dict[str, None] = {}
    for row in rows:
        for name in row.scores:
            seen.setdefault(name, None)
    return list(seen)
