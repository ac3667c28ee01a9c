"""A finished job's outputs: ``results.jsonl`` (one line per row, by row index) and
``aggregation.json`` (per-metric summaries), plus the ``AggregationOutput`` message.

``AggregationOutput.aggregation_results`` lists, metric by metric in request order, one entry
per requested ``aggregation_metrics`` value (AVERAGE and STANDARD_DEVIATION when none is asked)
whose value is defined. The value sits in the result field of the metric's kind:
``exact_match_metric_value`` / ``bleu_metric_value`` / ``rouge_metric_value`` (those specs and
``computation_based_metric_spec``), ``custom_code_execution_result``, and
``pointwise_metric_result`` for every other kind (its ``explanation`` names the metric).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from google.protobuf import json_format

from evald import api
from evald.aggregation.summary import MetricSummary, classification_report, summarize
from evald.errors import InvalidArgument
from evald.jobs.rows import classification_params, is_pairwise, metric_labels
from evald.jobs.sources import confined, local_path, storage_client

RESULTS_FILE = "results.jsonl"
AGGREGATION_FILE = "aggregation.json"
UNKNOWN_LABEL = "unknown"
_VALUE_FIELD = {
    "exact_match_spec": "exact_match_metric_value",
    "bleu_spec": "bleu_metric_value",
    "rouge_spec": "rouge_metric_value",
    "custom_code_execution_spec": "custom_code_execution_result",
}
_VALUE_OF_TYPE = {
    "EXACT_MATCH": "exact_match_metric_value",
    "BLEU": "bleu_metric_value",
    "ROUGE": "rouge_metric_value",
}


def predicted_label(response: str, valid_labels: Sequence[str] | None) -> str:
    """The label FMEval's classification_accuracy reads from a response (see that metric)."""
    if valid_labels is None:
        return response.lower().strip()
    valid = {label.lower().strip() for label in valid_labels}
    words = (w.lower().strip() for w in response.split())
    return next((w for w in words if w in valid), UNKNOWN_LABEL)


def summaries(metrics: Sequence[Any], records: Sequence[dict[str, Any]]) -> list[MetricSummary]:
    """The summary of each metric over the row results ``records``."""
    labels = metric_labels(metrics)
    found = []
    for i, (metric, label) in enumerate(zip(metrics, labels, strict=True)):
        scores = [record["results"][i]["score"] for record in records]
        requested = [
            api.messages.Metric.AggregationMetric.Name(a)
            for a in metric.aggregation_metrics
            if a != 0
        ]
        summary = summarize(label, scores, requested, pairwise=is_pairwise(metric))
        params = classification_params(metric)
        if params is not None:
            summary.classification = _classification(metric, params, records, i)
        found.append(summary)
    return found


def _classification(
    metric: Any, params: dict[str, Any], records: Sequence[dict[str, Any]], i: int
) -> dict[str, Any]:
    valid = params.get("valid_labels")
    truth, predicted = [], []
    for record in records:
        row = record["input"]
        if record["results"][i]["error"] is not None:
            continue  # kept out, like every errored row
        truth.append(str(row.get("reference", "")).lower().strip())
        predicted.append(predicted_label(str(row.get("response", "")), valid))
    other: dict[str, Any] = {}
    if metric.HasField("metadata"):
        other = json_format.MessageToDict(metric.metadata.other_metadata)
    raw = other.get("pos_label", "1")
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)  # a Struct number: 1 arrives as 1.0
    pos_label = str(raw).lower().strip()
    return classification_report(truth, predicted, pos_label)


def aggregation_output(dataset: Any, metrics: Sequence[Any], found: Sequence[MetricSummary]) -> Any:
    """The ``AggregationOutput`` message of a finished job."""
    output = api.messages.AggregationOutput()
    output.dataset.CopyFrom(dataset)
    for metric, summary in zip(metrics, found, strict=True):
        field = _value_field(metric)
        for name in summary.requested:
            value = summary.aggregations.get(name)
            if value is None:
                continue  # undefined (no scores, or a spread of one value)
            item: Any = output.aggregation_results.add()
            item.aggregation_metric = api.messages.Metric.AggregationMetric.Value(name)
            target = getattr(item, field)
            target.score = value
            if field == "pointwise_metric_result":
                target.explanation = f"{summary.metric} {name}"
    return output


def _value_field(metric: Any) -> str:
    which = metric.WhichOneof("metric_spec")
    if which == "computation_based_metric_spec" and metric.computation_based_metric_spec.HasField(
        "type_"
    ):
        spec = metric.computation_based_metric_spec
        name = spec.ComputationBasedMetricType.Name(spec.type_)
        return _VALUE_OF_TYPE.get(name, "pointwise_metric_result")
    return _VALUE_FIELD.get(which or "", "pointwise_metric_result")


def aggregation_json(found: Sequence[MetricSummary], rows: int, rows_failed: int) -> dict[str, Any]:
    """What ``aggregation.json`` holds."""
    return {
        "rows": rows,
        "rows_failed": rows_failed,
        "metrics": [summary.to_json() for summary in found],
    }


def output_directory(prefix: str, job_id: str) -> str:
    """Where a job writes: ``<output_uri_prefix>/<job id>`` (the scheme kept)."""
    return prefix.rstrip("/") + "/" + job_id


def check_destination(prefix: str, field: str, root: Path | None) -> str:
    """Make sure a job can write under ``prefix`` (a local one under ``root``: see
    :func:`~evald.jobs.sources.confined`); the prefix to use, a local one made absolute.
    Raises EvalError."""
    path = local_path(prefix, field)
    if path is None:
        storage_client()
        return prefix
    path = confined(path, root, field, "output")

    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidArgument(field, f"cannot create directory {prefix}: {exc}") from None
    if not os.access(path, os.W_OK):
        raise InvalidArgument(field, f"directory {prefix} is not writable")
    return str(path)


def write(
    directory: str, result_lines: Sequence[str], aggregation: dict[str, Any], root: Path | None
) -> None:
    """Write both files (each replaced atomically) into ``directory`` (a local one under
    ``root``)."""
    field = "output_config.gcs_destination.output_uri_prefix"
    path = local_path(directory, field)
    if path is not None:
        path = confined(path, root, field, "output")
    files = {
        RESULTS_FILE: "".join(line + "\n" for line in result_lines),
        AGGREGATION_FILE: json.dumps(aggregation, indent=2, ensure_ascii=False) + "\n",
    }
    if path is None:
        _upload(directory, files)
        return
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path, prefix=f".{name}.", delete=False
        ) as handle:
            handle.write(text)
        Path(handle.name).replace(path / name)


def _upload(directory: str, files: dict[str, str]) -> None:
    client = storage_client()
    parsed = urlparse(directory)
    bucket = client.bucket(parsed.netloc)
    for name, text in files.items():
        blob = bucket.blob(f"{parsed.path.strip('/')}/{name}".lstrip("/"))
        blob.upload_from_string(text, content_type="application/json")
