"""A finished job's outputs: ``results.jsonl`` (one line per row, by row index) and
``aggregation.json`` (per-metric summaries), plus the ``AggregationOutput`` message.

``AggregationOutput.aggregation_results`` lists, metric by metric in request order, one entry
per requested ``aggregation_metrics`` value (AVERAGE and STANDARD_DEVIATION when none is asked)
whose value is defined. The value sits in the result field of the metric's kind:
``exact_match_metric_value`` / ``bleu_metric_value`` / ``rouge_metric_value`` (those specs and
``computation_based_metric_spec``), ``custom_code_execution_result``, and
``pointwise_metric_result`` for every other kind (its ``explanation`` names the metric).
Then come the metric's dataset scores (NeMo's corpus BLEU, FMEval's classification scores:
``AGGREGATION_METRIC_UNSPECIFIED``, explanation ``"<metric> <score name>"``), and, when the
dataset has a ``category`` column, the same entries per category, always as
``pointwise_metric_result`` with ``" category=<value>"`` ending the explanation.
"""

from __future__ import annotations

import json
import math
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from google.protobuf import json_format

from evald import api
from evald.aggregation.summary import (
    MetricSummary,
    classification_report,
    classification_scores,
    summarize,
)
from evald.errors import EvalError, InvalidArgument
from evald.jobs.rows import classification_params, is_pairwise, metric_labels
from evald.jobs.sources import confined, instance_of, local_path, storage_client
from evald.metrics.base import Metric
from evald.metrics.catalog import builtin
from evald.metrics.instance import InstanceView
from evald.metrics.named.fmeval.classification_accuracy import convert_label
from evald.metrics.params import Params

RESULTS_FILE = "results.jsonl"
AGGREGATION_FILE = "aggregation.json"
CATEGORY_COLUMN = "category"
"""The column whose values group rows for per-category results (FMEval's ``category``)."""
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


def summaries(metrics: Sequence[Any], records: Sequence[dict[str, Any]]) -> list[MetricSummary]:
    """The summary of each metric over the row results ``records``, and over the rows of each
    category when the dataset has a ``category`` column."""
    labels = metric_labels(metrics)
    groups = categories(records)
    found = []
    for i, (metric, label) in enumerate(zip(metrics, labels, strict=True)):
        summary = _summary(metric, label, records, i, records)
        if groups:
            summary.categories = {
                name: _summary(metric, label, rows, i, records) for name, rows in groups.items()
            }
        found.append(summary)
    return found


def categories(records: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The records of each value of the ``category`` column, by value (sorted, as FMEval's
    group-by sorts); rows without a category are only in the overall results. Empty when no
    row has one."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        value = record.get("input", {}).get(CATEGORY_COLUMN)
        if value is None:
            continue
        name = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        groups.setdefault(name, []).append(record)
    return dict(sorted(groups.items()))


def _summary(
    metric: Any,
    label: str,
    records: Sequence[dict[str, Any]],
    i: int,
    dataset: Sequence[dict[str, Any]],
) -> MetricSummary:
    """The summary of metric ``i`` over ``records``, part of (or all of) ``dataset``."""
    requested = [
        api.messages.Metric.AggregationMetric.Name(a) for a in metric.aggregation_metrics if a != 0
    ]
    scores = [_score(record["results"][i]) for record in records]
    summary = summarize(label, scores, requested, pairwise=is_pairwise(metric))
    scored = [record for record in records if record["results"][i]["error"] is None]
    params = classification_params(metric)
    if params is not None:
        everywhere = [record for record in dataset if record["results"][i]["error"] is None]
        summary.classification = _classification(metric, params, scored, everywhere)
        summary.dataset_scores.update(classification_scores(summary.classification))
    summary.dataset_scores.update(_dataset_scores(metric, scored, i))
    return summary


def _score(result: dict[str, Any]) -> float | None:
    """A row's score: None when the metric erred, NaN when it scored NaN (stored as null)."""
    if result["error"] is not None:
        return None
    return math.nan if result["score"] is None else float(result["score"])


def _dataset_scores(metric: Any, records: Sequence[dict[str, Any]], i: int) -> dict[str, float]:
    """The named metric's scores over the whole set of ``records`` (see
    :meth:`Metric.dataset_scores`)."""
    if metric.WhichOneof("metric_spec") != "predefined_metric_spec":
        return {}
    spec = metric.predefined_metric_spec
    named = builtin().named.get(spec.metric_spec_name)
    if named is None or type(named).dataset_scores is Metric.dataset_scores:
        return {}
    path = f"metrics[{i}].predefined_metric_spec.metric_spec_parameters"
    try:
        params = Params(
            json_format.MessageToDict(spec.metric_spec_parameters), named.parameters, path
        )
        views = [_view(record) for record in records]
        return named.dataset_scores(params, views)
    except EvalError:
        return {}  # a row the metric could score cannot fail here; a bad spec failed every row


def _view(record: dict[str, Any]) -> InstanceView:
    """The instance of a result record's row (scored without error, so it converts)."""
    path = f"rows[{record['row']}]"
    return InstanceView(instance_of(record["input"], path), path)


def _classification(
    metric: Any,
    params: dict[str, Any],
    records: Sequence[dict[str, Any]],
    dataset: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    # FMEval's dataset scores: the reference as is against the converted response, with the
    # distinct references of the whole dataset (also for a category's scores) as the labels
    # when valid_labels is not given. The texts are read as the metric reads them (a column
    # may hold an InstanceData object).
    views = [_view(record) for record in records]
    truth = [view.text("reference") or "" for view in views]
    valid = params.get("valid_labels")
    if isinstance(valid, list):
        labels = [str(v) for v in valid]
    else:
        labels = sorted({_view(record).text("reference") or "" for record in dataset})
    predicted = [convert_label(view.text("response") or "", labels) for view in views]
    other: dict[str, Any] = {}
    if metric.HasField("metadata"):
        other = json_format.MessageToDict(metric.metadata.other_metadata)
    raw = other.get("pos_label", "1")
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)  # a Struct number: 1 arrives as 1.0
    average = params.get("multiclass_average_strategy", "micro")
    return classification_report(truth, predicted, str(raw), average)


def aggregation_output(dataset: Any, metrics: Sequence[Any], found: Sequence[MetricSummary]) -> Any:
    """The ``AggregationOutput`` message of a finished job."""
    output = api.messages.AggregationOutput()
    output.dataset.CopyFrom(dataset)
    for metric, summary in zip(metrics, found, strict=True):
        _add_results(output, summary, _value_field(metric), "")
        for name, category in (summary.categories or {}).items():
            _add_results(output, category, "pointwise_metric_result", f" category={name}")
    return output


def _add_results(output: Any, summary: MetricSummary, field: str, suffix: str) -> None:
    for name in summary.requested:
        value = summary.aggregations.get(name)
        if value is None:
            continue  # undefined (no scores, or a spread of one value)
        item: Any = output.aggregation_results.add()
        item.aggregation_metric = api.messages.Metric.AggregationMetric.Value(name)
        target = getattr(item, field)
        target.score = value
        if field == "pointwise_metric_result":
            target.explanation = f"{summary.metric} {name}{suffix}"
    for name, value in summary.dataset_scores.items():
        if not math.isfinite(value):
            continue
        item = output.aggregation_results.add()
        item.pointwise_metric_result.score = value
        item.pointwise_metric_result.explanation = f"{summary.metric} {name}{suffix}"


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
    files = {
        RESULTS_FILE: "".join(line + "\n" for line in result_lines),
        AGGREGATION_FILE: json.dumps(aggregation, indent=2, ensure_ascii=False) + "\n",
    }
    write_files(directory, files, root)


def write_files(
    directory: str,
    files: dict[str, str],
    root: Path | None,
    field: str = "output_config.gcs_destination.output_uri_prefix",
) -> None:
    """Write ``files`` (name to text, each replaced atomically) into ``directory`` (a local one
    under ``root``, or ``gs://``)."""
    path = local_path(directory, field)
    if path is not None:
        path = confined(path, root, field, "output")
    if path is None:
        _upload(directory, files)
        return
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        # Created like any other file (mode 0666 less the umask), not with tempfile's 0600: the
        # outputs are read by whoever reads the directory, and every file gets the same mode.
        partial = path / f".{name}.{secrets.token_hex(8)}"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with open(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
            partial.replace(path / name)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise


def _upload(directory: str, files: dict[str, str]) -> None:
    client = storage_client()
    parsed = urlparse(directory)
    bucket = client.bucket(parsed.netloc)
    for name, text in files.items():
        blob = bucket.blob(f"{parsed.path.strip('/')}/{name}".lstrip("/"))
        blob.upload_from_string(text, content_type="application/json")
