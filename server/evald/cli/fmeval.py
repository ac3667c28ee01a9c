"""``evald evaluate --algorithm NAME``: one of FMEval's model evaluations, in this process.

``--data`` is the dataset, ``--target`` the model under test (``{"api_endpoint": {...}}``, or a
NeMo model target), ``--config`` the algorithm's config with FMEval's field names,
``--data-config`` which columns hold what (FMEval's DataConfig field names),
``--prompt-template`` the prompt with ``$model_input``, ``--generation-params`` request fields
for the model. Outputs as ``evald evaluate``: a summary table (overall and per category),
``results.jsonl`` (one record per row), ``aggregation.json`` and ``report.html``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evald.aggregation.summary import MetricSummary, summarize
from evald.cli import report
from evald.cli.progress import Progress
from evald.errors import EvalError
from evald.jobs import outputs, sources

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_THRESHOLD = 0, 1, 2, 3


class UsageError(Exception):
    """A flag or file the user must fix (exit code 2)."""


def _json_arg(value: str | None, flag: str) -> dict[str, Any]:
    """A JSON object given inline or as a file path (empty when not given)."""
    if not value:
        return {}
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


def _target(value: dict[str, Any]) -> dict[str, Any] | None:
    """``{"api_endpoint": ...}`` from either shape ``--target`` takes."""
    if not value:
        return None
    if value.get("type") == "model" and isinstance(value.get("model"), dict):
        return {"api_endpoint": value["model"].get("api_endpoint")}
    return value


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald evaluate --algorithm``; returns the exit code."""
    from evald.fmeval import run as runs

    try:
        if args.metric:
            raise UsageError("--algorithm takes no --metric: the algorithm names its scores")
        if args.data is None:
            raise UsageError("--algorithm needs --data")
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
        plan = runs.plan(
            args.algorithm,
            _json_arg(args.config, "--config"),
            _target(_json_arg(args.target, "--target")),
            _json_arg(args.data_config, "--data-config"),
            args.prompt_template or "",
            _json_arg(args.generation_params, "--generation-params"),
        )
        data = sources.read_rows([str(args.data)], None)  # the user's own files
    except UsageError as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except EvalError as exc:
        print(f"evald evaluate: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    rows = [runs.canonical(plan, row) for row in data]
    if plan.endpoint is None and runs.needs_model(plan, rows):
        print("evald evaluate: this evaluation calls the model: give --target", file=sys.stderr)
        return EXIT_USAGE
    try:
        records, missing = asyncio.run(_score(args, plan, rows))
    except EvalError as exc:
        print(f"evald evaluate: {exc.message}", file=sys.stderr)
        return EXIT_FAILED
    aggregation = runs.aggregation(plan, records, missing)
    summaries = _summaries(aggregation, records)
    table = outputs.aggregation_json(summaries, len(records), aggregation["rows_failed"])
    out: Path = args.output
    files = {
        outputs.RESULTS_FILE: "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
        outputs.AGGREGATION_FILE: json.dumps(aggregation, indent=2, ensure_ascii=False) + "\n",
    }
    out.mkdir(parents=True, exist_ok=True)
    outputs.write_files(str(out), files, None, "--output")
    title = f"evald report: {plan.algorithm.name} on {args.data.name}"
    (out / "report.html").write_text(
        report.html_report(title, table, _report_records(records, summaries)), encoding="utf-8"
    )
    print(report.summary_table(table))
    if aggregation["unavailable"]:
        print(
            f"\nnot computed: {', '.join(aggregation['unavailable'])} ({missing})",
            file=sys.stderr,
        )
    print(f"\nresults: {out / outputs.RESULTS_FILE}", file=sys.stderr)
    print(f"report:  {out / 'report.html'}", file=sys.stderr)
    return _thresholds(args.fail_under, summaries)


async def _score(
    args: argparse.Namespace, plan: Any, rows: list[dict[str, Any]]
) -> tuple[list[Any], str | None]:
    """Every row's record, and why the BERTScores are not computed (None: they are)."""
    # Only now: the targets load for this command alone.
    from evald.config import Settings
    from evald.fmeval import run as runs
    from evald.fmeval.jobs import NoModel
    from evald.fmeval.model import TargetModel
    from evald.models.inline import InlineModels
    from evald.targets import Targets

    settings = Settings.load()
    targets = Targets(
        cache_path=None,
        max_concurrency=settings.target_concurrency,
        timeout_seconds=settings.target_timeout_seconds,
    )
    try:
        model: Any = (
            NoModel() if plan.endpoint is None else TargetModel(targets, plan.endpoint, plan.params)
        )
        await runs.probe(plan, rows, model)
        context = await plan.algorithm.prepare(rows, plan.config, model, plan.prompt_template)
        models = InlineModels(settings.models_dir, settings.model_device)
        bertscore, missing = runs.bertscore_of(plan, models)
        records: list[Any] = [None] * len(rows)
        progress = None if args.quiet else Progress(len(rows))
        pending = iter(range(len(rows)))
        done = failed = 0

        async def worker() -> None:
            nonlocal done, failed
            for index in pending:
                record = await runs.score_row(plan, index, rows[index], model, context, bertscore)
                records[index] = record
                done += 1
                failed += record["error"] is not None
                if progress is not None:
                    progress.update(done, failed)

        try:
            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        finally:
            if progress is not None:
                progress.close()
        return records, missing
    finally:
        await targets.aclose()


def _summaries(
    aggregation: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
) -> list[MetricSummary]:
    """evald's summary (mean, CI, quantiles) of each score, with one per category; the
    algorithm's own dataset score is kept beside it when it is not the mean."""
    summaries = []
    for score in aggregation["scores"]:
        name = score["name"]
        values = [_value(r, name) for r in records]
        summary = summarize(name, values)
        categories: dict[str, list[float | None]] = {}
        for record, value in zip(records, values, strict=True):
            category = record["input"].get("category")
            if category is not None:
                categories.setdefault(str(category), []).append(value)
        summary.categories = {c: summarize(name, v) for c, v in sorted(categories.items())}
        official = score["value"]
        if official is not None and (
            summary.mean is None or not math.isclose(official, summary.mean)
        ):
            summary.dataset_scores["fmeval"] = official
        summaries.append(summary)
    return summaries


def _value(record: Mapping[str, Any], name: str) -> float | None:
    if record["error"] is not None:
        return None
    value = record["scores"].get(name)
    return math.nan if value is None else float(value)


def _report_records(
    records: Sequence[Mapping[str, Any]], summaries: Sequence[MetricSummary]
) -> list[dict[str, Any]]:
    """Rows in the HTML report's shape: the input, the model's output and each score."""
    found = []
    for record in records:
        row = record["input"]
        details = record["details"]
        shown = {
            "prompt": row.get("model_input", row.get("sent_more_input", "")),
            "response": details.get("model_output", row.get("model_output", "")),
            "reference": row.get("target_output", row.get("sent_less_input", "")),
            "category": row.get("category"),
        }
        results = [
            {
                "metric": s.metric,
                "score": record["scores"].get(s.metric) if record["error"] is None else None,
                "explanation": None,
                "error": record["error"],
            }
            for s in summaries
        ]
        found.append({"row": record["row"], "input": shown, "results": results})
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
            limit = math.nan
        if summary is None or math.isnan(limit):
            print(
                f"evald evaluate: --fail-under {value}: expected SCORE=NUMBER with SCORE one "
                f"of {', '.join(by_name)}",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if summary.mean is None or summary.mean < limit:
            shown = "no score" if summary.mean is None else f"{summary.mean:.4f}"
            print(f"FAIL {name}: mean {shown} < {limit}", file=sys.stderr)
            code = EXIT_THRESHOLD
    return code
