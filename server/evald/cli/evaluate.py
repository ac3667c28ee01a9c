"""``evald evaluate``: score a dataset file with one or more metrics, in-process (``--local``)
or through a server (``--server``), then print a summary, write the results and an HTML report.

``--metric`` reaches every metric of the catalog (see :mod:`evald.cli.metrics` and
``evald metrics list``); ``--metric-template NAME=FILE`` adds a custom judge template. In
this process, judge metrics use the judge configuration a server would read: ``--judge-config``
(or ``EVALD_JUDGE_CONFIG``), else ``EVALD_JUDGE_BACKEND`` & co., else the ``[judges]`` table
of the ``EVALD_CONFIG`` file (docs/judges.md); without one, a run with a judge metric stops
before scoring (exit 2). ``--judge`` / ``--judge-model`` choose the judge through the request's
``autorater_config.autorater_model``, in this process and on a server alike.

Exit codes:

- 0 done: every metric scored, errors within ``--max-error-rate``, every ``--fail-under`` met;
- 1 the run failed: the server is unreachable, every row of a metric errored, or the share of
  rows with an error is above ``--max-error-rate`` (default 0: any error). The results and
  the report are still written, and the errors are shown grouped by message;
- 2 bad usage: flags, metric names, an unreadable data file, a judge metric without a judge;
- 3 a ``--fail-under`` threshold was not met (a metric without scores fails its threshold);
- 4 reserved: assertions of an eval file below their pass rate.

When a run both failed and missed a threshold, the exit code is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import difflib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2_grpc as services
from google.protobuf import json_format

from evald.cli import connection, report
from evald.cli import judge_usage as usage_report
from evald.cli import metrics as catalog_names
from evald.cli.progress import Progress, duration
from evald.cli.version import evald_version
from evald.errors import EvalError, InvalidArgument
from evald.jobs import judge_usage, outputs, rows, sources
from evald.judges import usage

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_THRESHOLD, EXIT_ASSERTIONS = 0, 1, 2, 3, 4
"""EXIT_ASSERTIONS: an eval file's rows passed their assertions below its pass rate."""
EXIT_CODES_HELP = (
    "Exit codes: 0 done; 1 the run failed (server unreachable, every row of a metric errored, "
    "or more rows errored than --max-error-rate allows); 2 bad usage (flags, metric names, "
    "data file, a judge metric without a judge); 3 a --fail-under threshold was not met; "
    "4 an eval file's assertions passed below its pass rate (-c)."
)
DEFAULT_OUTPUT = Path("evald-results")
PAIRWISE_PLACEHOLDERS = ("{baseline_model_response}", "{baseline_response}")
"""A custom template that shows the baseline is pairwise."""
CHOICES = {"CANDIDATE": 1.0, "BASELINE": 0.0, "TIE": 0.5}
"""A legacy pairwise verdict as a score, as the Metric API scores it."""


class UsageError(Exception):
    """A flag or argument the user must fix (exit code 2)."""


@dataclass(frozen=True)
class Choice:
    """One metric of the run. ``metric`` is the Metric API message sent for it, or, for a
    legacy metric input, a stand-in of the same kind (pointwise or pairwise, the label as its
    title, the aggregations) that the summaries read."""

    metric: Any
    input_field: str | None = None
    """A ``metric_inputs`` member: the metric is sent as that input, one request per row."""
    spec: Any = None
    """The input's ``metric_spec``."""
    needs_judge: bool = False
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """What the report shows of the metric's settings."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``evald evaluate``."""
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        help="a metric name as `evald metrics list` shows it: a computed metric (exact_match, "
        "bleu, rouge[:TYPE]), a predefined metric (general_quality_v1, safety_v1, nemo/f1, "
        "fmeval/classification_accuracy) or a legacy metric input (fluency, safety, "
        "pairwise_summarization_quality, tool_name_match, comet_input...), optionally "
        "NAME:{json parameters}; repeat for several",
    )
    parser.add_argument(
        "--metric-template",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="a custom judge metric NAME whose prompt template is the text of FILE, with "
        "{prompt}, {response}, {reference} and other columns as placeholders; pairwise when it "
        "uses {baseline_model_response} (the baseline_response column); repeatable",
    )
    parser.add_argument("--data", type=Path, help="dataset file: .jsonl, .json (array) or .csv")
    parser.add_argument(
        "-c",
        "--eval-file",
        type=Path,
        metavar="FILE",
        help="run an eval file (YAML or JSON: rows, metrics, judge, target and per-row "
        "assertions; see docs/eval-files.md) instead of --metric and --data; exit 4 when the "
        "pass rate is below its threshold",
    )
    parser.add_argument(
        "--min-pass-rate",
        type=float,
        metavar="RATE",
        help="with --eval-file: the share of rows whose assertions all pass that is required "
        "(0 to 1; default the file's threshold, else 1)",
    )
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
        "--judge",
        metavar="NAME",
        help="the judge of judge metrics, by its name in the judge config (its default model); "
        "sent as autorater_config.autorater_model",
    )
    parser.add_argument(
        "--judge-model",
        metavar="MODEL",
        help="the judge model of judge metrics (served by the configured judge whose model or "
        "models match); sent as autorater_config.autorater_model",
    )
    parser.add_argument(
        "--judge-config",
        type=Path,
        metavar="FILE",
        help="in this process: the TOML/JSON judge config (default EVALD_JUDGE_CONFIG; "
        "without one, EVALD_JUDGE_BACKEND, EVALD_JUDGE_MODEL, EVALD_JUDGE_API_KEY... define "
        "one judge, as for evald serve)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=16, help="rows scored at the same time (default 16)"
    )
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        help="where this process's rows are scored: local, or ray (tasks on a Ray cluster, "
        "needs evald[ray]; default EVALD_ENGINE, else local)",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster of --engine ray: auto (the one this node joined), "
        "ray://HOST:PORT, HOST:PORT, or local (start one here); default EVALD_RAY_ADDRESS, "
        "else auto",
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
        "--max-error-rate",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="exit 1 when the share of rows with an error is above FRACTION, 0 to 1 "
        "(default 0: any error fails the run)",
    )
    parser.add_argument(
        "--aggregation",
        action="append",
        default=[],
        metavar="NAME",
        help="AggregationMetric to report per metric, shown in the summary and the report "
        "(AVERAGE, MEDIAN, PERCENTILE_P90, ...)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    connection.add_arguments(parser)


def _aggregations(names: Sequence[str]) -> list[Any]:
    try:
        return [m.Metric.AggregationMetric.Value(a) for a in names]
    except ValueError:
        choices = ", ".join(n for n in m.Metric.AggregationMetric.keys()[1:])
        raise UsageError(f"unknown --aggregation; use one of: {choices}") from None


def _json_object(text: str, argument: str) -> dict[str, Any]:
    try:
        value = json.loads(argument)
    except ValueError as exc:
        raise UsageError(f"--metric {text}: parameters must be a JSON object ({exc})") from None
    if not isinstance(value, dict):
        raise UsageError(f"--metric {text}: parameters must be a JSON object")
    return value


def parse_metric(
    text: str, aggregations: Sequence[str] = (), server: bool = False, catalog: Any = None
) -> Choice:
    """The metric a ``--metric`` value names in ``catalog`` (default: evald's metrics);
    UsageError if it names none. Through a server, a ``family/name`` the catalog lacks is sent
    as is (the server may load metric modules)."""
    name, _, argument = text.partition(":")
    metric = m.Metric()
    metric.aggregation_metrics.extend(_aggregations(aggregations))
    entry = catalog_names.lookup(name, catalog)
    if entry is None and server and "/" in name and not name.startswith("vertex/"):
        entry = catalog_names.Entry(name, "predefined_metric_spec", False)
    if entry is None:
        raise UsageError(_unknown(name, catalog))
    if entry.entry_point == "predefined_metric_spec":
        metric.predefined_metric_spec.metric_spec_name = entry.name
        params = _json_object(text, argument) if argument else {}
        metric.predefined_metric_spec.metric_spec_parameters.update(params)
        options = {"parameters": params} if params else {}
        return Choice(metric, needs_judge=entry.needs_judge, options=options)
    if entry.entry_point.endswith("_spec"):
        spec = getattr(metric, entry.entry_point)
        spec.SetInParent()
        if argument and name == "rouge":
            spec.rouge_type = argument
        elif argument:
            raise UsageError(f"--metric {text}: {name} takes no parameters")
        return Choice(metric, options=catalog_names.spec_dict(spec))
    return _input_choice(text, entry, argument, metric)


def _input_choice(text: str, entry: catalog_names.Entry, argument: str, metric: Any) -> Choice:
    """A legacy metric input: its spec from the parameters, a stand-in for the summaries."""
    spec = catalog_names.input_message(entry.entry_point)().metric_spec
    if argument.startswith("{"):
        try:
            json_format.ParseDict(_json_object(text, argument), spec)
        except json_format.ParseError as exc:  # its text spans lines: one line on stderr
            raise UsageError(f"--metric {text}: {' '.join(str(exc).split())}") from None
    elif argument and entry.entry_point == "rouge_input":  # rouge_input:rougeL, as rouge:rougeL
        spec.rouge_type = argument
    elif argument:
        raise UsageError(f"--metric {text}: parameters must be a JSON object")
    kind = "pairwise_metric_spec" if entry.pairwise else "pointwise_metric_spec"
    getattr(metric, kind).SetInParent()
    # Named as rouge is: rouge_input:rougeL, so two rouge types can be told apart.
    typed = entry.entry_point == "rouge_input" and spec.rouge_type
    metric.metadata.title = f"{entry.name}:{spec.rouge_type}" if typed else entry.name
    options = {"input": entry.entry_point, **catalog_names.spec_dict(spec)}
    return Choice(metric, entry.entry_point, spec, entry.needs_judge, options)


def _unknown(name: str, catalog: Any) -> str:
    known = [entry.name for entry in catalog_names.entries(catalog)]
    close = difflib.get_close_matches(name.removeprefix("vertex/"), known, n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    return f"unknown metric {name!r}: {hint}see `evald metrics list` for every name"


def parse_template(value: str, aggregations: Sequence[str] = ()) -> Choice:
    """A ``--metric-template NAME=FILE``: a pointwise or pairwise judge metric."""
    name, sep, file = value.partition("=")
    if not sep or not name or not file:
        raise UsageError(f"--metric-template {value}: expected NAME=FILE")
    try:
        template = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--metric-template {value}: cannot read {file}: {exc}") from None
    if not template.strip():
        raise UsageError(f"--metric-template {value}: {file} is empty")
    metric = m.Metric()
    metric.aggregation_metrics.extend(_aggregations(aggregations))
    metric.metadata.title = name
    pairwise = any(p in template for p in PAIRWISE_PLACEHOLDERS)
    spec = metric.pairwise_metric_spec if pairwise else metric.pointwise_metric_spec
    # The rows' baseline_response column reaches the template as baseline_model_response.
    spec.metric_prompt_template = template.replace(
        "{baseline_response}", "{baseline_model_response}"
    )
    options = {"template": file, "kind": "pairwise" if pairwise else "pointwise"}
    return Choice(metric, needs_judge=True, options=options)


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

    if args.eval_file is not None or args.min_pass_rate is not None:
        from evald.cli import evalfile

        return evalfile.run(args)
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
    started, date = time.monotonic(), datetime.now(UTC)
    try:
        algorithm_flags = ("config", "data_config", "prompt_template", "generation_params")
        for flag in algorithm_flags:
            if getattr(args, flag):
                raise UsageError(f"--{flag.replace('_', '-')} goes with --algorithm")
        if args.target:
            raise UsageError("--target goes with --nemo-config or --algorithm")
        if not (args.metric or args.metric_template) or args.data is None:
            raise UsageError("give --metric (or --metric-template) and --data (or --nemo-config)")
        if args.concurrency < 1:
            raise UsageError("--concurrency must be at least 1")
        if not 0.0 <= args.max_error_rate <= 1.0:
            raise UsageError("--max-error-rate must be a fraction from 0 to 1")
        if args.judge and args.judge_model:
            raise UsageError(
                "give --judge or --judge-model, not both: a request names one judge model "
                "(a judge's name stands for its default model)"
            )
        if args.judge_config is not None and args.server:
            raise UsageError("--judge-config is for scoring in this process; a server has its own")
        if args.server and (args.engine or args.ray_address):
            raise UsageError("--engine and --ray-address are for scoring in this process")
        if not args.server and local_settings(args).engine == "ray":
            check_ray()
        catalog = None if args.server else local_catalog(args)
        choices = [
            parse_metric(text, args.aggregation, bool(args.server), catalog) for text in args.metric
        ]
        choices += [parse_template(value, args.aggregation) for value in args.metric_template]
        labels = rows.metric_labels([choice.metric for choice in choices])
        thresholds = parse_thresholds(args.fail_under, labels)
        try:
            data = sources.read_rows([str(args.data)], None)  # the user's own files
        except EvalError as exc:
            raise UsageError(f"--data {args.data}: {exc.message}") from None
        if not args.server:
            check_judge(args, choices, labels)
    except UsageError as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        records = asyncio.run(_score(args, choices, labels, data))
    except RunFailed as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_FAILED
    found = outputs.summaries([choice.metric for choice in choices], records)
    failed = sum(1 for r in records if rows.failed(r))
    aggregation = outputs.aggregation_json(found, len(records), failed)
    aggregation["run"] = run_metadata(args, choices, labels, date, time.monotonic() - started)
    aggregation.update(judge_usage.section(records))
    title = f"evald report: {args.data.name}"
    try:
        outputs.write(str(args.output), [rows.dumps(r) for r in records], aggregation, None)
        page = report.html_report(title, aggregation, records)
        outputs.write_files(str(args.output), {report.REPORT_FILE: page}, None)
    except (OSError, EvalError) as exc:
        print(f"evald evaluate: cannot write to {args.output}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(report.summary_table(aggregation))
    for line in usage_report.summary_lines(aggregation):
        print(line)
    groups = report.error_groups(records)
    if groups:
        print("\n" + report.error_text(groups), file=sys.stderr)
        hint = column_hint(data, choices)
        if hint:
            print(hint, file=sys.stderr)
    print(f"\nresults: {args.output / outputs.RESULTS_FILE}", file=sys.stderr)
    print(f"report:  {args.output / report.REPORT_FILE}", file=sys.stderr)
    code = EXIT_OK
    for summary in found:
        if summary.metric not in thresholds:
            continue
        limit = thresholds[summary.metric]
        if summary.mean is None or summary.mean < limit:
            shown = "no score" if summary.mean is None else f"{summary.mean:.4f}"
            print(f"FAIL {summary.metric}: mean {shown} < {limit}", file=sys.stderr)
            code = EXIT_THRESHOLD
    for problem in run_problems(found, len(records), failed, args.max_error_rate):
        print(f"evald evaluate: {problem}", file=sys.stderr)
        code = EXIT_FAILED
    return code


def run_problems(found: Sequence[Any], total: int, failed: int, max_error_rate: float) -> list[str]:
    """Why a finished run failed (exit 1): a metric that errored on every row, more rows with
    an error than ``max_error_rate`` allows."""
    problems = [
        f"every row of {summary.metric} failed (errors above)"
        for summary in found
        if total and summary.errors == total
    ]
    if total and failed / total > max_error_rate:
        problems.append(
            f"{failed} of {total} rows had an error ({failed / total:.0%}), more than "
            f"--max-error-rate {max_error_rate:g} allows"
        )
    return problems


def column_hint(data: Sequence[dict[str, Any]], choices: Sequence[Choice]) -> str | None:
    """A hint for rows that name the model output ``prediction``, which only the legacy inputs
    read; every other metric reads ``response``."""
    if not any(choice.input_field is None for choice in choices):
        return None
    if any("prediction" in row and "response" not in row for row in data):
        return (
            "hint: the rows have a 'prediction' column but no 'response': evald reads the "
            "model output from 'response' (rename the column)"
        )
    return None


def check_judge(args: argparse.Namespace, choices: Sequence[Choice], labels: Sequence[str]) -> None:
    """In this process: a judge metric (or ``--judge``) needs a judge configuration that serves
    what was asked for; UsageError saying what to configure, before any row is scored."""
    judged = [label for choice, label in zip(choices, labels, strict=True) if choice.needs_judge]
    requested = args.judge or args.judge_model or ""
    if not judged and not requested:
        return
    from evald.judges import config as judge_config  # the judges: only for judge metrics

    settings = local_settings(args)
    try:
        found = judge_config.load(settings.judge_config, settings.judges, os.environ)
    except (ValueError, judge_config.ConfigError) as exc:
        raise UsageError(f"judge configuration: {exc}") from None
    if found is None:
        needs = ", ".join(judged) if judged else "--judge"
        raise UsageError(
            f"{needs} needs a judge and none is configured; {judge_config.HOW_TO_CONFIGURE}, "
            "or pass --judge-config FILE"
        )
    try:
        found.resolve(requested)
    except LookupError as exc:
        flag = "--judge" if args.judge else "--judge-model" if args.judge_model else "judge"
        raise UsageError(f"{flag}: {exc}") from None


def local_settings(args: argparse.Namespace) -> Any:
    """The settings of scoring in this process: a server's, from ``EVALD_*`` and the
    ``EVALD_CONFIG`` file, with ``--judge-config``."""
    from evald.config import Settings

    overrides = {
        "judge_config": args.judge_config,
        "engine": getattr(args, "engine", None),
        "ray_address": getattr(args, "ray_address", None),
    }
    try:
        return Settings.load(overrides)
    except ValueError as exc:
        raise UsageError(f"settings: {exc}") from None


def check_ray() -> None:
    """UsageError when ``--engine ray`` is asked for without Ray installed."""
    from evald.jobs import ray_engine

    try:
        ray_engine.require()
    except EvalError as exc:
        raise UsageError(exc.message) from None


def local_catalog(args: argparse.Namespace) -> Any:
    """The metrics of scoring in this process: evald's and those of ``metric_modules``."""
    from evald.metrics.catalog import Catalog, builtin

    modules = local_settings(args).metric_module_names()
    try:
        return Catalog.discover(modules) if modules else builtin()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def autorater_config(args: argparse.Namespace) -> Any:
    """The request's ``autorater_config`` for ``--judge`` / ``--judge-model``, else None."""
    model = args.judge or args.judge_model
    return m.AutoraterConfig(autorater_model=model) if model else None


def run_metadata(
    args: argparse.Namespace,
    choices: Sequence[Choice],
    labels: Sequence[str],
    date: datetime,
    seconds: float,
) -> dict[str, Any]:
    """What the report and ``aggregation.json`` say about the run itself."""
    return {
        "date": date.isoformat(timespec="seconds"),
        "evald_version": evald_version(),
        "where": f"server {args.server}" if args.server else "local",
        "data": str(args.data),
        "duration_seconds": round(seconds, 3),
        "duration": duration(seconds),
        "judge": args.judge or args.judge_model or None,
        "aggregations": list(args.aggregation),
        "metrics": [
            {"metric": label, **choice.options}
            for choice, label in zip(choices, labels, strict=True)
        ],
    }


class RunFailed(Exception):
    """The run could not go on (exit code 1)."""


async def _score(
    args: argparse.Namespace,
    choices: list[Choice],
    labels: list[str],
    data: list[dict[str, Any]],
) -> list[dict[str, Any]]:

    # Drawn before the metrics (or the channel) are ready: the terminal is never left blank.
    progress = None if args.quiet else Progress(len(data))
    autorater = autorater_config(args)
    results: list[dict[str, Any] | None] = [None] * len(data)
    pending = iter(range(len(data)))
    done = failed = 0

    async def worker() -> None:
        nonlocal done, failed
        for index in pending:
            record = await score_row(evaluate, choices, labels, index, data[index], autorater)
            results[index] = record
            done += 1
            failed += rows.failed(record)
            if progress is not None:
                progress.update(done, failed)

    settings = None if args.server else local_settings(args)
    if settings is not None and settings.engine == "ray":
        try:
            return await _score_on_ray(settings, args, choices, labels, data, progress)
        finally:
            if progress is not None:
                progress.close()
    try:
        evaluate, close = await _evaluator(args)
        try:
            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        finally:
            await close()
    finally:
        if progress is not None:
            progress.close()
    return [r for r in results if r is not None]


@dataclass(frozen=True)
class CliRows:
    """Scores one row as :func:`score_row` does: a plain value (picklable), so that Ray workers
    score with this very code (``--engine ray``)."""

    choices: tuple[Choice, ...]
    labels: tuple[str, ...]
    autorater: Any = None

    async def __call__(
        self, evaluate: rows.Evaluate, index: int, row: dict[str, Any]
    ) -> tuple[bool, str]:
        record = await score_row(evaluate, self.choices, self.labels, index, row, self.autorater)
        return rows.failed(record), rows.dumps(record)


async def _score_on_ray(
    settings: Any,
    args: argparse.Namespace,
    choices: list[Choice],
    labels: list[str],
    data: list[dict[str, Any]],
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """The rows' records, scored by tasks on a Ray cluster (``--engine ray``); ``--concurrency``
    rows at a time per task."""
    from evald.jobs import ray_engine

    engine = ray_engine.RayEngine(dataclasses.replace(settings, job_concurrency=args.concurrency))
    scorer = CliRows(tuple(choices), tuple(labels), autorater_config(args))
    results: list[dict[str, Any] | None] = [None] * len(data)
    done = failed = 0

    async def store(batch: list[tuple[int, bool, str]]) -> None:
        nonlocal done, failed
        for index, row_failed, line in batch:
            results[index] = json.loads(line)
            done += 1
            failed += row_failed
        if progress is not None:
            progress.update(done, failed)

    try:
        await engine.score(scorer, data, range(len(data)), store)
    except EvalError as exc:
        raise RunFailed(exc.message) from None
    return [r for r in results if r is not None]


async def score_row(
    evaluate: rows.Evaluate,
    choices: Sequence[Choice],
    labels: Sequence[str],
    index: int,
    row: dict[str, Any],
    autorater: Any = None,
) -> dict[str, Any]:
    """One row's record: the Metric API metrics in one request, each legacy input in one of
    its own; never raises for a row-level problem."""
    shared = [i for i, choice in enumerate(choices) if choice.input_field is None]
    results: list[Any] = [None] * len(choices)

    async def together() -> None:
        if not shared:
            return
        metrics = [choices[i].metric for i in shared]
        record = await rows.score_row(
            evaluate, metrics, [labels[i] for i in shared], index, row, autorater
        )
        for i, result in zip(shared, record["results"], strict=True):
            results[i] = result

    async def alone(i: int) -> None:
        with usage.collect() as tally:
            results[i] = await score_input(evaluate, choices[i], labels[i], index, row, autorater)
        judge_usage.annotate_result(results[i], tally)

    singles = [alone(i) for i, choice in enumerate(choices) if choice.input_field is not None]
    await asyncio.gather(together(), *singles)
    return {"row": index, "input": row, "results": results}


async def score_input(
    evaluate: rows.Evaluate,
    choice: Choice,
    label: str,
    index: int,
    row: dict[str, Any],
    autorater: Any = None,
) -> dict[str, Any]:
    """The result of one legacy metric input on one row."""
    assert choice.input_field is not None
    try:
        request = m.EvaluateInstancesRequest()
        message = getattr(request, choice.input_field)
        message.metric_spec.CopyFrom(choice.spec)
        field = catalog_names.instance_field(choice.input_field)
        holder = getattr(message, field.name)
        fill_instance(holder.add() if field.is_repeated else holder, row, f"rows[{index}]")
        if autorater is not None:
            request.autorater_config.CopyFrom(autorater)
        return input_result(label, await evaluate(request))
    except Exception as exc:  # the row errs, the run goes on
        return rows.errored_result(label, rows.error_json(exc))


def fill_instance(instance: Any, row: dict[str, Any], path: str) -> None:
    """A legacy input's instance from a row: each field from the column of its name (or its
    alias, e.g. ``prediction`` from ``response``); ``json_instance`` is the whole row."""
    for field in instance.DESCRIPTOR.fields:
        if field.name == "json_instance":
            instance.json_instance = json.dumps(row, ensure_ascii=False)
            continue
        names = (field.name, *catalog_names.COLUMN_ALIASES.get(field.name, ()))
        column = next((name for name in names if row.get(name) is not None), None)
        if column is None:
            if field.name == "prediction":
                raise InvalidArgument(path, "no 'response' column (nor 'prediction')")
            continue
        value, where = row[column], f"{path}.{column}"
        if field.message_type is None:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            setattr(instance, field.name, text)
            continue
        try:
            parsed = json.loads(value) if isinstance(value, str) else value
            json_format.ParseDict(parsed, getattr(instance, field.name))
        except (ValueError, json_format.ParseError) as exc:
            raise InvalidArgument(where, f"not a {field.message_type.name}: {exc}") from None


def input_result(label: str, response: Any) -> dict[str, Any]:
    """A legacy input's result as a result record: a score, 1/0/0.5 for a pairwise verdict."""
    which = response.WhichOneof("evaluation_results")
    if which is None:
        raise RuntimeError("the response holds no result")
    result = getattr(response, which)
    fields = result.DESCRIPTOR.fields_by_name
    score: float | None
    if "pairwise_choice" in fields:
        score = CHOICES.get(m.PairwiseChoice.Name(result.pairwise_choice))
    elif "score" in fields:
        score = rows.float32_value(float(result.score))
    else:  # per-instance values (bleu_metric_values...): one instance was sent
        values = getattr(result, result.DESCRIPTOR.fields[0].name)
        if len(values) != 1:
            raise RuntimeError(f"{len(values)} values for one instance")
        score = rows.float32_value(float(values[0].score))
    explanation = str(result.explanation) if "explanation" in fields else ""
    finite = score is not None and score == score
    return {
        "metric": label,
        "score": score if finite else None,
        "explanation": explanation or None,
        "error": None,
    }


async def _evaluator(args: argparse.Namespace) -> tuple[Any, Any]:
    if args.server:
        try:
            channel = await connection.connect(args)
        except connection.ConnectionFailed as exc:
            raise RunFailed(str(exc)) from None
        stub: Any = services.EvaluationServiceStub(channel)  # type: ignore[no-untyped-call]

        async def remote(request: Any) -> Any:
            return await usage_report.call_reporting_usage(
                stub.EvaluateInstances, request, timeout=600
            )

        async def close_channel() -> None:
            await channel.close(None)

        return remote, close_channel

    # Only now: the metrics and their libraries load for in-process scoring alone.
    from evald.app import App

    app = App.build(local_settings(args))
    return app.evaluator.evaluate_instances, app.aclose
