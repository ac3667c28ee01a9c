"""``evald evaluate --nemo-config JOB.json``: run a NeMo Evaluator job body in this process.

The body is what ``POST /v1/evaluation/jobs`` takes (``config`` and ``target`` inline);
``--target`` replaces its target. Relative dataset paths are read from the job file's
directory. Outputs as ``evald evaluate``: a summary table, ``results.json`` (NeMo's results
shape), ``rows.jsonl`` (one record per row), ``aggregation.json`` and ``report.html``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evald.aggregation.summary import MetricSummary, summarize
from evald.cli import report
from evald.cli.progress import Progress
from evald.errors import EvalError
from evald.jobs import outputs

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_THRESHOLD = 0, 1, 2, 3


class UsageError(Exception):
    """A flag or file the user must fix (exit code 2)."""


def _json_arg(value: str, flag: str) -> Any:
    """A JSON object given inline or as a file path."""
    text = value
    if not value.lstrip().startswith("{"):
        try:
            text = Path(value).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{flag} {value}: {exc.strerror or exc}") from None
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{flag} {value}: not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise UsageError(f"{flag} {value}: must be a JSON object")
    return found


def _local_urls(value: Any, base: Path) -> Any:
    """``files_url`` values that are relative paths, made relative to ``base``."""
    if isinstance(value, dict):
        found = {}
        for key, item in value.items():
            if key == "files_url" and isinstance(item, str) and "://" not in item:
                path = Path(item)
                found[key] = str(path if path.is_absolute() else base / path)
            else:
                found[key] = _local_urls(item, base)
        return found
    if isinstance(value, list):
        return [_local_urls(item, base) for item in value]
    return value


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald evaluate --nemo-config``; returns the exit code."""
    try:
        if args.metric or args.data:
            raise UsageError("--nemo-config takes its metrics and data from the job body")
        body = _json_arg(str(args.nemo_config), "--nemo-config")
        for key in ("config", "target"):
            if key == "target" and args.target:
                continue
            if not isinstance(body.get(key), dict):
                raise UsageError(
                    f"--nemo-config: the job's {key} must be given inline (a stored "
                    f"'namespace/name' lives on a server)"
                )
        # Relative paths: from the file that holds them (the current directory for an inline
        # --target).
        body = _local_urls(body, Path(args.nemo_config).resolve().parent)
        if args.target:
            inline = args.target.lstrip().startswith("{")
            base = Path.cwd() if inline else Path(args.target).resolve().parent
            body["target"] = _local_urls(_json_arg(args.target, "--target"), base)
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
    except UsageError as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        found = asyncio.run(_run(args, body))
    except EvalError as exc:
        print(f"evald evaluate: {exc.message}", file=sys.stderr)
        return EXIT_USAGE if exc.code.name in ("INVALID_ARGUMENT", "NOT_FOUND") else EXIT_FAILED
    result, records, columns = found
    summaries = [c.summary for c in columns]
    aggregation = outputs.aggregation_json(
        summaries, len(records), sum(1 for r in records if r["errors"])
    )
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "results.json": json.dumps(result, indent=2, ensure_ascii=False) + "\n",
        "rows.jsonl": "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
        outputs.AGGREGATION_FILE: json.dumps(aggregation, indent=2, ensure_ascii=False) + "\n",
    }
    outputs.write_files(str(out), files, None, "--output")
    title = f"evald report: {Path(args.nemo_config).name}"
    (out / "report.html").write_text(
        report.html_report(title, aggregation, _report_records(records, columns)),
        encoding="utf-8",
    )
    print(report.summary_table(aggregation))
    print(f"\nresults: {out / 'results.json'}", file=sys.stderr)
    print(f"report:  {out / 'report.html'}", file=sys.stderr)
    return _thresholds(args.fail_under, summaries)


async def _run(
    args: argparse.Namespace, body: Mapping[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]], list[Column]]:
    # Only now: the metrics, the judges and the targets load for this command alone.
    from evald.app import HF_TOKEN, App
    from evald.config import Settings
    from evald.nemo import datasets, evaluation, plan

    settings = Settings.load()
    app = App.build(settings)
    try:
        found = plan.build(body["config"], body["target"], app.services.metrics)
        access = datasets.DatasetAccess(
            hf_endpoint=settings.hf_endpoint,
            hf_token=os.environ.get(HF_TOKEN) or None,
            hf_datasets_dir=settings.hf_datasets_dir,
            cache_dir=settings.data_root() / "hf",
        )
        rows = await asyncio.to_thread(evaluation.load_rows, found, access)
        numbered = evaluation.numbered(rows)
        run = evaluation.Evaluation(found, rows, app.targets, app.services)
        progress = None if args.quiet else Progress(len(numbered))
        records: list[dict[str, Any] | None] = [None] * len(numbered)
        pending = iter(numbered)
        done = failed = 0

        async def worker() -> None:
            nonlocal done, failed
            for row in pending:
                record = await run.score(row)
                records[row.number] = record
                done += 1
                failed += evaluation.failed(record)
                if progress is not None:
                    progress.update(done, failed)

        try:
            workers = min(args.concurrency, found.parallelism or args.concurrency)
            await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            if progress is not None:
                progress.close()
        kept = [r for r in records if r is not None]
        scores = await asyncio.to_thread(evaluation.results, found, kept)
        result = {"job": "local", **scores}
        return result, kept, _columns(found, kept, scores)
    finally:
        await app.aclose()


def _label(task: str, metric: str, score: str, tasks: int) -> str:
    return f"{metric}/{score}" if tasks == 1 else f"{task}/{metric}/{score}"


@dataclass(frozen=True)
class Column:
    """One reported score of one metric of one task, and its summary over the rows."""

    task: str
    metric: str
    score: str
    """The score's name in the rows' records (before a similarity_metrics renaming)."""
    divisor: float
    summary: MetricSummary


def _columns(
    found: Any, records: Sequence[Mapping[str, Any]], scores: Mapping[str, Any]
) -> list[Column]:
    """evald's summary (mean, CI, quantiles) of each score of each metric of each task."""
    columns = []
    many = len(found.tasks)
    for task in found.tasks:
        mine = [r for r in records if r["task"] == task.name]
        reported = scores["tasks"][task.name]["metrics"]
        for metric in task.metrics:
            names = reported[metric.key]["scores"]
            raw_names = {metric.rename.get(n, n): n for n in _raw_names(metric, mine)}
            dataset = {
                name: item["value"]
                for name, item in names.items()
                if name not in raw_names and item.get("value") is not None
            }
            for shown, raw in raw_names.items():
                values: list[float | None] = []
                for record in mine:
                    if metric.key in record["errors"] or "_target" in record["errors"]:
                        values.append(None)
                        continue
                    v = (record["scores"].get(metric.key) or {}).get(raw)
                    values.append(float("nan") if v is None else v / metric.divisor)
                summary = summarize(_label(task.name, metric.key, shown, many), values)
                summary.dataset_scores.update(dataset)
                columns.append(Column(task.name, metric.key, raw, metric.divisor, summary))
    return columns


def _raw_names(metric: Any, records: Sequence[Mapping[str, Any]]) -> list[str]:
    names = list(metric.metric.nemo_score_names)
    for record in records:
        for name in record["scores"].get(metric.key) or {}:
            if name not in names:
                names.append(name)
    return names


def _report_records(
    records: Sequence[Mapping[str, Any]], columns: Sequence[Column]
) -> list[dict[str, Any]]:
    """The rows in the shape of the HTML report: one result per reported score."""
    found = []
    for record in records:
        sample = record.get("sample") or {}
        item = dict(record["item"])
        item.setdefault("response", sample.get("output_text", ""))
        results = []
        for column in columns:
            result: dict[str, Any] = {
                "metric": column.summary.metric, "score": None, "explanation": None, "error": None
            }  # fmt: skip
            if column.task == record["task"]:
                errors = record["errors"]
                result["error"] = errors.get("_target") or errors.get(column.metric)
                value = (record["scores"].get(column.metric) or {}).get(column.score)
                result["score"] = None if value is None else value / column.divisor
            results.append(result)
        found.append({"row": record["row"], "input": item, "results": results})
    return found


def _thresholds(values: Sequence[str], summaries: Sequence[MetricSummary]) -> int:
    by_name = {s.metric: s for s in summaries}
    code = EXIT_OK
    for value in values:
        name, _, number = value.rpartition("=")
        summary = by_name.get(name)
        try:
            limit = float(number)
        except ValueError:
            limit = float("nan")
        if summary is None or limit != limit:
            print(
                f"evald evaluate: --fail-under {value}: expected METRIC=NUMBER with METRIC one "
                f"of {', '.join(by_name)}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if summary.mean is None or summary.mean < limit:
            shown = "no score" if summary.mean is None else f"{summary.mean:.4f}"
            print(f"FAIL {name}: mean {shown} < {limit}", file=sys.stderr)
            code = EXIT_THRESHOLD
    return code
