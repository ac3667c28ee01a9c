"""Scoring one dataset row with every metric of a job, and naming those metrics.

Shared by dataset jobs (in the server) and ``evald evaluate`` (in-process or through a server):
both hand :func:`score_row` a function that answers one ``EvaluateInstancesRequest``.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import code_pb2

from evald import api
from evald.errors import EvalError, internal_status
from evald.jobs import judge_usage
from evald.jobs.sources import Row, instance_of
from evald.judges import usage

Evaluate = Callable[[Any], Awaitable[Any]]
"""EvaluateInstancesRequest in, EvaluateInstancesResponse out (raises on a failed call)."""

CLASSIFICATION_METRIC = "fmeval/classification_accuracy"


def metric_label(metric: Any) -> str:
    """A short name for a ``Metric``: its ``metadata.title``, else e.g. ``bleu``,
    ``rouge:rougeLsum``, ``nemo/bleu``, ``computation_based:BLEU``, ``pairwise``."""
    if metric.HasField("metadata") and metric.metadata.title:
        return str(metric.metadata.title)
    which = str(metric.WhichOneof("metric_spec") or "none")
    spec: Any = getattr(metric, which, None)
    if which == "predefined_metric_spec":
        return str(spec.metric_spec_name)
    if which == "rouge_spec":
        return f"rouge:{spec.rouge_type}" if spec.rouge_type else "rouge"
    if which == "computation_based_metric_spec" and spec.HasField("type_"):
        return "computation_based:" + str(spec.ComputationBasedMetricType.Name(spec.type_))
    return which.removesuffix("_metric_spec").removesuffix("_spec").removesuffix("_execution")


def metric_labels(metrics: Sequence[Any]) -> list[str]:
    """Labels of ``metrics``, made unique with ``#2``, ``#3``... where they repeat."""
    labels: list[str] = []
    for metric in metrics:
        label = metric_label(metric)
        n = sum(1 for existing in labels if existing.split("#")[0] == label)
        labels.append(label if n == 0 else f"{label}#{n + 1}")
    return labels


def is_pairwise(metric: Any) -> bool:
    """Whether a metric's scores are pairwise verdicts (1 candidate, 0 baseline, 0.5 tie)."""
    return bool(metric.WhichOneof("metric_spec") == "pairwise_metric_spec")


def classification_params(metric: Any) -> dict[str, Any] | None:
    """``metric_spec_parameters`` of an FMEval classification_accuracy metric, else None."""
    if metric.WhichOneof("metric_spec") != "predefined_metric_spec":
        return None
    spec = metric.predefined_metric_spec
    if spec.metric_spec_name != CLASSIFICATION_METRIC:
        return None
    return dict(json_format.MessageToDict(spec.metric_spec_parameters))


def _error_json(status: Any) -> dict[str, Any]:
    return {"code": code_pb2.Code.Name(status.code), "message": status.message}


def float32_value(value: float) -> float:
    """The shortest decimal that reads back as the same float32 as ``value``: a score from a
    ``float`` field reads 0.8, not 0.800000011920929 (the float32 widened to a double)."""
    single = _single(value)
    if single is None or not math.isfinite(single):
        return value
    for digits in range(1, 10):  # 9 significant digits always round-trip a float32
        text = f"{single:.{digits}g}"
        if _single(float(text)) == single:
            return float(text)
    return single


def _single(value: float) -> float | None:
    """``value`` as the nearest float32, or None when it is beyond the float32 range (a
    rounded text near the largest float32 can be)."""
    try:
        found: float = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return None
    return found


def result_json(label: str, result: Any) -> dict[str, Any]:
    """One ``MetricResult`` as JSON: the score is null when the metric errored, and when it
    scored NaN (JSON has no NaN; the summaries count such a row under ``nan``). A score from a
    float32 field is written as the shortest decimal of that float32."""
    errored = result.HasField("error") and result.error.code != 0
    score = float(result.score)
    if result.DESCRIPTOR.fields_by_name["score"].type == FieldDescriptor.TYPE_FLOAT:
        score = float32_value(score)
    item: dict[str, Any] = {
        "metric": label,
        "score": None if errored or math.isnan(score) else score,
        "explanation": result.explanation if result.HasField("explanation") else None,
        "error": _error_json(result.error) if errored else None,
    }
    return item


async def score_row(
    evaluate: Evaluate,
    metrics: Sequence[Any],
    labels: Sequence[str],
    index: int,
    row: Row,
    autorater_config: Any = None,
) -> dict[str, Any]:
    """The result record of one row: ``{"row", "input", "results": [...]}``, with what its
    judge calls cost (:mod:`evald.jobs.judge_usage`); never raises for a row-level problem (every
    metric then carries the error).

    Judge calls made in this process count directly; an ``evaluate`` that calls a server adds
    the usage the server reported (:func:`evald.judges.usage.add_reported`)."""
    with usage.collect() as tally:
        record = await _score(evaluate, metrics, labels, index, row, autorater_config)
    judge_usage.annotate(record, tally)
    return record


async def _score(
    evaluate: Evaluate,
    metrics: Sequence[Any],
    labels: Sequence[str],
    index: int,
    row: Row,
    autorater_config: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {"row": index, "input": row}
    try:
        request = api.messages.EvaluateInstancesRequest(
            metrics=metrics, instance=instance_of(row, f"rows[{index}]")
        )
        if autorater_config is not None:
            request.autorater_config.CopyFrom(autorater_config)
        response = await evaluate(request)
        results = list(response.metric_results)
        if len(results) != len(labels):
            raise RuntimeError(f"{len(results)} results for {len(labels)} metrics")
        record["results"] = [result_json(lbl, r) for lbl, r in zip(labels, results, strict=True)]
    except Exception as exc:  # a remote failure or a bug: the row errs, the job goes on
        error = error_json(exc)
        record["results"] = [errored_result(lbl, error) for lbl in labels]
    return record


@dataclass(frozen=True)
class DatasetRows:
    """Scores a row of a Vertex ``EvaluateDataset`` job: ``(failed, result JSON)``. A plain
    value (picklable), so that Ray workers score rows with this very code (``--engine ray``)."""

    metrics: tuple[Any, ...]
    labels: tuple[str, ...]
    autorater: Any = None

    async def __call__(self, evaluate: Evaluate, index: int, row: Row) -> tuple[bool, str]:
        record = await score_row(evaluate, self.metrics, self.labels, index, row, self.autorater)
        return failed(record), dumps(record)


def error_json(exc: Exception) -> dict[str, Any]:
    """The ``{"code", "message"}`` of a failed call: an EvalError (in-process), a gRPC error
    (through a server), else an internal error (a bug: its text is not shown)."""
    if isinstance(exc, EvalError):
        return _error_json(exc.to_status())
    status = getattr(exc, "status", None)
    if status is None and hasattr(exc, "code") and hasattr(exc, "details"):
        return {"code": exc.code().name, "message": exc.details() or ""}
    return _error_json(status if status is not None else internal_status())


def errored_result(label: str, error: dict[str, Any]) -> dict[str, Any]:
    """The result of a metric that erred on a row."""
    return {"metric": label, "score": None, "explanation": None, "error": error}


def failed(record: dict[str, Any]) -> bool:
    """Whether any metric of a row result errored."""
    return any(r["error"] is not None for r in record["results"])


def dumps(record: dict[str, Any]) -> str:
    """One JSONL line (no newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
