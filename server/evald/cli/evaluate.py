"""``evald evaluate``: score a dataset file with one or more metrics, in-process (``--local``)
or through a server (``--server``), then print a summary, write the results and an HTML report.

Exit codes: 0 done (every ``--fail-under`` met); 1 the run failed (server unreachable, ...);
2 bad usage (flags, metric names, an unreadable data file); 3 a ``--fail-under`` threshold was
not met (a metric whose rows all errored has no mean and fails its threshold).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2_grpc as services
from google.protobuf import json_format

from evald.cli import connection, report
from evald.cli.progress import Progress
from evald.errors import EvalError
from evald.jobs import outputs, rows, sources
from evald.metrics.catalog import builtin

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_THRESHOLD = 0, 1, 2, 3
DEFAULT_OUTPUT = Path("evald-results")


def simple_specs() -> dict[str, str]:
    """``--metric`` names of the computed metrics with a spec of their own (``bleu`` ->
    ``bleu_spec``), as the metrics declare them. Found when first asked for: ``evald jobs`` and
    ``evald evaluate --help`` need not load the metrics."""
    return builtin().spec_names()


class UsageError(Exception):
    """A flag or argument the user must fix (exit code 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``evald evaluate``."""
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        help="exact_match, bleu, rouge[:TYPE] (rouge1, rouge2, rougeL, rougeLsum) or a "
        "predefined metric such as nemo/f1 or fmeval/classification_accuracy, optionally "
        "NAME:{json parameters}; repeat for several",
    )
    parser.add_argument("--data", type=Path, help="dataset file: .jsonl, .json (array) or .csv")
    parser.add_argument(
        "--nemo-config",
        type=Path,
        metavar="JOB.json",
        help="run a NeMo Evaluator job body (config and target inline) in this process, "
        "instead of --metric and --data",
    )
    parser.add_argument(
        "--target",
        metavar="JSON",
        help="the model to evaluate (a JSON object, or a file holding one): with "
        "--nemo-config it replaces the job's target; with --algorithm it is "
        '{"api_endpoint": {"url", "model_id", "api_key", "format"}}',
    )
    parser.add_argument(
        "--algorithm",
        metavar="NAME",
        help="evaluate the model --target with one of FMEval's algorithms (e.g. "
        "qa_accuracy_semantic_robustness, prompt_stereotyping, summarization_accuracy) over "
        "--data, instead of --metric",
    )
    parser.add_argument(
        "--config",
        metavar="JSON",
        help="with --algorithm: its config, with the field names of FMEval's config class",
    )
    parser.add_argument(
        "--data-config",
        metavar="JSON",
        help="with --algorithm: which columns hold what, with FMEval's DataConfig field names "
        '(e.g. {"model_input_location": "question", "target_output_location": "answer"})',
    )
    parser.add_argument(
        "--prompt-template",
        metavar="TEXT",
        help="with --algorithm: the prompt sent to the model, with $model_input (default "
        "$model_input)",
    )
    parser.add_argument(
        "--generation-params",
        metavar="JSON",
        help="with --algorithm: request fields sent to the model (max_tokens, temperature, ...)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--server", metavar="ADDR", help="score through the server at HOST:PORT")
    where.add_argument("--local", action="store_true", help="score in this process (the default)")
    parser.add_argument(
        "--concurrency", type=int, default=16, help="rows scored at the same time (default 16)"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="directory for results.jsonl, aggregation.json and report.html "
        f"(default {DEFAULT_OUTPUT})",
    )
    parser.add_argument(
        "--fail-under",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="exit 3 when METRIC's mean is below VALUE (repeatable; METRIC as in the table)",
    )
    parser.add_argument(
        "--aggregation",
        action="append",
        default=[],
        metavar="NAME",
        help="AggregationMetric to report per metric (AVERAGE, MEDIAN, PERCENTILE_P90, ...)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    connection.add_arguments(parser)


def parse_metric(text: str, aggregations: Sequence[str] = ()) -> Any:
    """A v1beta1 ``Metric`` from a ``--metric`` value; UsageError if it cannot be one."""

    name, _, argument = text.partition(":")
    metric = m.Metric()
    try:
        values: Any = [m.Metric.AggregationMetric.Value(a) for a in aggregations]
        metric.aggregation_metrics.extend(values)
    except ValueError:
        choices = ", ".join(n for n in m.Metric.AggregationMetric.keys()[1:])
        raise UsageError(f"unknown --aggregation; use one of: {choices}") from None
    simple = simple_specs()
    if name in simple:
        spec = getattr(metric, simple[name])
        spec.SetInParent()
        if argument and name == "rouge":
            spec.rouge_type = argument
        elif argument:
            raise UsageError(f"--metric {text}: {name} takes no argument")
        return metric
    if "/" in name or name in builtin().named:
        metric.predefined_metric_spec.metric_spec_name = name
        if argument:
            try:
                json_format.ParseDict(
                    json.loads(argument), metric.predefined_metric_spec.metric_spec_parameters
                )
            except (ValueError, json_format.ParseError) as exc:
                raise UsageError(
                    f"--metric {text}: parameters must be a JSON object ({exc})"
                ) from None
        return metric
    raise UsageError(
        f"unknown metric {name!r}: use exact_match, bleu, rouge[:TYPE] or a predefined "
        "metric name such as nemo/f1"
    )


def parse_thresholds(values: Sequence[str], labels: Sequence[str]) -> dict[str, float]:
    """``METRIC=VALUE`` pairs; METRIC must be one of ``labels``."""
    found: dict[str, float] = {}
    for value in values:
        name, sep, number = value.rpartition("=")
        try:
            threshold = float(number)
        except ValueError:
            threshold = float("nan")
        if not sep or threshold != threshold:
            raise UsageError(f"--fail-under {value}: expected METRIC=NUMBER")
        if name not in labels:
            raise UsageError(
                f"--fail-under {value}: no metric {name!r}; metrics: {', '.join(labels)}"
            )
        found[name] = threshold
    return found


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald evaluate``; returns the exit code."""

    if args.nemo_config is not None and args.algorithm:
        print("evald evaluate: give --nemo-config or --algorithm, not both", file=sys.stderr)
        return EXIT_USAGE
    if (args.nemo_config is not None or args.algorithm) and (args.server or args.aggregation):
        print(
            "evald evaluate: --nemo-config and --algorithm run in this process and take no "
            "--server or --aggregation (run them on a server as jobs: see evald jobs)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.nemo_config is not None:
        from evald.cli import nemo

        return nemo.run(args)
    if args.algorithm:
        from evald.cli import fmeval

        return fmeval.run(args)
    try:
        algorithm_flags = ("config", "data_config", "prompt_template", "generation_params")
        for flag in algorithm_flags:
            if getattr(args, flag):
                raise UsageError(f"--{flag.replace('_', '-')} goes with --algorithm")
        if args.target:
            raise UsageError("--target goes with --nemo-config or --algorithm")
        if not args.metric or args.data is None:
            raise UsageError("give --metric and --data (or --nemo-config)")
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
        metrics = [parse_metric(text, args.aggregation) for text in args.metric]
        labels = rows.metric_labels(metrics)
        thresholds = parse_thresholds(args.fail_under, labels)
        try:
            data = sources.read_rows([str(args.data)], None)  # the user's own files
        except EvalError as exc:
            raise UsageError(f"--data {args.data}: {exc.message}") from None
    except UsageError as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        records = asyncio.run(_score(args, metrics, labels, data))
    except RunFailed as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_FAILED
    found = outputs.summaries(metrics, records)
    failed = sum(1 for r in records if rows.failed(r))
    aggregation = outputs.aggregation_json(found, len(records), failed)
    args.output.mkdir(parents=True, exist_ok=True)
    outputs.write(str(args.output), [rows.dumps(r) for r in records], aggregation, None)
    title = f"evald report: {args.data.name}"
    (args.output / "report.html").write_text(
        report.html_report(title, aggregation, records), encoding="utf-8"
    )
    print(report.summary_table(aggregation))
    print(f"\nresults: {args.output / outputs.RESULTS_FILE}", file=sys.stderr)
    print(f"report:  {args.output / 'report.html'}", file=sys.stderr)
    code = EXIT_OK
    for summary in found:
        if summary.metric not in thresholds:
            continue
        limit = thresholds[summary.metric]
        if summary.mean is None or summary.mean < limit:
            shown = "no score" if summary.mean is None else f"{summary.mean:.4f}"
            print(f"FAIL {summary.metric}: mean {shown} < {limit}", file=sys.stderr)
            code = EXIT_THRESHOLD
    return code


class RunFailed(Exception):
    """The run could not go on (exit code 1)."""


async def _score(
    args: argparse.Namespace, metrics: list[Any], labels: list[str], data: list[dict[str, Any]]
) -> list[dict[str, Any]]:

    evaluate, close = await _evaluator(args)
    results: list[dict[str, Any] | None] = [None] * len(data)
    progress = None if args.quiet else Progress(len(data))
    pending = iter(range(len(data)))
    done = failed = 0

    async def worker() -> None:
        nonlocal done, failed
        for index in pending:
            record = await rows.score_row(evaluate, metrics, labels, index, data[index])
            results[index] = record
            done += 1
            failed += rows.failed(record)
            if progress is not None:
                progress.update(done, failed)

    try:
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    finally:
        await close()
        if progress is not None:
            progress.close()
    return [r for r in results if r is not None]


async def _evaluator(args: argparse.Namespace) -> tuple[Any, Any]:
    if args.server:
        try:
            channel = await connection.connect(args)
        except connection.ConnectionFailed as exc:
            raise RunFailed(str(exc)) from None
        stub: Any = services.EvaluationServiceStub(channel)  # type: ignore[no-untyped-call]

        async def remote(request: Any) -> Any:
            return await stub.EvaluateInstances(request, timeout=600)

        async def close_channel() -> None:
            await channel.close(None)

        return remote, close_channel

    # Only now: the metrics and their libraries load for in-process scoring alone.
    from evald.app import App
    from evald.config import Settings

    app = App.build(Settings.load())
    return app.evaluator.evaluate_instances, app.aclose
