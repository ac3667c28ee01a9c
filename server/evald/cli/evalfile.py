"""``evald evaluate -c FILE`` (``--eval-file``): an eval file names the rows, the metrics, the
judge, optionally a model target that writes the responses, and per-row assertions; the run
scores every row, checks its assertions and exits on the pass rate.

The file is YAML (``.yaml``/``.yml``) or JSON (``.json``). Top-level keys, all optional but
for some rows::

    description: text
    data: rows.jsonl              # a dataset file (.jsonl, .json, .csv), relative to this file
    tests:                        # inline rows, after the data file's
      - description: text
        vars: {prompt: ..., reference: ...}     # the row's fields
        assert: [...]                           # this row's assertions
    defaultTest: {vars: {...}, assert: [...]}   # fields and assertions of every row
    metrics: [bleu, "rouge:rougeL"]             # as --metric; scored on every row
    judge: MODEL                  # or {model: MODEL, sampling_count: N, flip_enabled: BOOL}
    target: {url, model_id, format, api_key_env, kind, prompt, system, params}
    server: HOST:PORT             # score through a server (--server / --local override it)
    threshold: 1.0                # the pass rate required (--min-pass-rate overrides it)

A row passes when all its assertions pass (a row with none passes); the pass rate is the share
of rows that pass. Assertion types: :mod:`evald.cli.assertions`.

Exit codes: 0 the pass rate reached the threshold; 1 the run failed (server unreachable, the
target failed on every row); 2 bad usage or an invalid eval file (one line naming the field,
e.g. ``evals.yaml: tests[3].assert[0].type: unknown assertion 'containz'``); 4 the pass rate
is below the threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evald.cli import assertions, report
from evald.cli.assertions import Assertion, Outcome, SpecError
from evald.cli.progress import Progress

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ASSERTIONS = 0, 1, 2, 4
MAX_FAILED_SHOWN = 200
"""Failed assertions listed in report.html (all are in results.jsonl)."""
TOP_KEYS = (
    "description",
    "data",
    "tests",
    "defaultTest",
    "metrics",
    "judge",
    "target",
    "server",
    "threshold",
)
TEST_KEYS = ("description", "vars", "assert")
TARGET_KEYS = ("url", "model_id", "format", "api_key_env", "kind", "prompt", "system", "params")
JUDGE_KEYS = ("model", "sampling_count", "flip_enabled")
# Flags of ``evald evaluate`` that an eval file replaces.
_OTHER_FLAGS = (
    "metric",
    "data",
    "nemo_config",
    "target",
    "algorithm",
    "config",
    "data_config",
    "prompt_template",
    "generation_params",
    "fail_under",
)


@dataclass(frozen=True)
class Test:
    """One row and its assertions (the file-wide ones first)."""

    row: dict[str, Any]
    assertions: tuple[Assertion, ...]
    where: str
    """``tests[2]``, or ``data[5]`` for the data file's sixth row."""
    description: str | None = None


@dataclass(frozen=True)
class Judge:
    """The judge of judge metrics and rubrics: a model name evald's judge configuration
    serves (empty: the default judge), and sampling settings (None: the server's)."""

    model: str = ""
    sampling_count: int | None = None
    flip_enabled: bool | None = None

    def autorater_config(self) -> Any:
        """The requests' ``AutoraterConfig``."""
        from evald import api

        config = api.messages.AutoraterConfig(autorater_model=self.model)
        if self.sampling_count is not None:
            config.sampling_count = self.sampling_count
        if self.flip_enabled is not None:
            config.flip_enabled = self.flip_enabled
        return config


@dataclass(frozen=True)
class Target:
    """The model under test: each row's ``prompt`` template is rendered and sent, the output
    becomes the row's ``response``."""

    url: str
    model_id: str
    prompt: str
    format: str = "nim"
    api_key_env: str | None = None
    kind: str = "chat"
    system: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalFile:
    """A validated eval file."""

    path: Path
    tests: tuple[Test, ...]
    metrics: tuple[str, ...]
    """``--metric`` texts scored on every row: ``metrics:`` then those of metric assertions."""
    description: str | None = None
    judge: Judge | None = None
    target: Target | None = None
    server: str | None = None
    threshold: float = 1.0


def load(path: Path) -> EvalFile:
    """Read and validate an eval file (and its data file); SpecError names the field."""
    return parse(read(path), path)


def read(path: Path) -> Any:
    """The file's document: JSON for ``.json``, else YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError("file", f"cannot read: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise SpecError("file", f"not valid JSON: {exc}") from None
    import yaml  # only eval files need it: not loaded for other commands

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SpecError("file", f"not valid YAML: {' '.join(str(exc).split())}") from None


def parse(document: Any, path: Path) -> EvalFile:
    """An eval file from its document; ``path`` locates the data file."""
    if not isinstance(document, Mapping):
        raise SpecError("file", "must be a mapping of eval file keys")
    unknown = [k for k in document if k not in TOP_KEYS]
    if unknown:
        raise SpecError(str(unknown[0]), f"unknown key; the keys are {', '.join(TOP_KEYS)}")
    defaults = _mapping(document.get("defaultTest"), "defaultTest")
    extra = [k for k in defaults if k not in ("vars", "assert")]
    if extra:
        raise SpecError(f"defaultTest.{extra[0]}", "unknown key (vars, assert)")
    base_vars = _mapping(defaults.get("vars"), "defaultTest.vars")
    base = assertions.parse_list(defaults.get("assert"), "defaultTest.assert")
    tests = [
        Test({**base_vars, **row}, base, f"data[{i}]")
        for i, row in enumerate(_data(document.get("data"), path))
    ]
    inline = document.get("tests")
    if inline is not None and not isinstance(inline, list):
        raise SpecError("tests", "must be a list of tests")
    for i, raw in enumerate(inline or []):
        tests.append(_test(raw, f"tests[{i}]", base_vars, base))
    if not tests:
        raise SpecError("file", "no rows: give data (a dataset file) or tests")
    metrics = _metrics(document.get("metrics"))
    every = [a for test in tests for a in test.assertions]
    for assertion in every:
        if assertion.type == "metric" and assertion.value not in metrics:
            _check_metric(assertion.value, f"{assertion.where}.value")
    return EvalFile(
        path=path,
        tests=tuple(tests),
        metrics=tuple(assertions.metric_texts(every, metrics)),
        description=_text(document.get("description"), "description"),
        judge=_judge(document.get("judge")),
        target=_target(document.get("target")),
        server=_text(document.get("server"), "server"),
        threshold=_rate(document.get("threshold"), "threshold"),
    )


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError(where, "must be a mapping")
    return value


def _text(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise SpecError(where, "must be a string")
    return value


def _rate(value: Any, where: str) -> float:
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise SpecError(where, "must be a number from 0 to 1")
    return float(value)


def _data(value: Any, path: Path) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, str):
        raise SpecError("data", "must be a dataset file path (relative to the eval file)")
    from evald.errors import EvalError
    from evald.jobs import sources

    try:
        return sources.read_rows([str(path.parent / value)], None)  # the user's own files
    except EvalError as exc:
        raise SpecError("data", f"{value}: {exc.message}") from None


def _test(raw: Any, where: str, base_vars: Mapping[str, Any], base: tuple[Assertion, ...]) -> Test:
    test = _mapping(raw, where)
    extra = [k for k in test if k not in TEST_KEYS]
    if extra:
        raise SpecError(f"{where}.{extra[0]}", f"unknown key ({', '.join(TEST_KEYS)})")
    row = {**base_vars, **_mapping(test.get("vars"), f"{where}.vars")}
    own = assertions.parse_list(test.get("assert"), f"{where}.assert")
    description = _text(test.get("description"), f"{where}.description")
    return Test(row, base + own, where, description)


def _metrics(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError("metrics", "must be a list of metric names")
    for i, text in enumerate(value):
        if not isinstance(text, str):
            raise SpecError(f"metrics[{i}]", "must be a metric name, as --metric takes")
        _check_metric(text, f"metrics[{i}]")
    return list(value)


def _check_metric(text: str, where: str) -> None:
    from evald.cli.evaluate import UsageError, parse_metric

    try:
        parse_metric(text)
    except UsageError as exc:
        raise SpecError(where, str(exc).removeprefix(f"--metric {text}: ")) from None


def _judge(value: Any) -> Judge | None:
    if value is None:
        return None
    if isinstance(value, str):
        return Judge(value)
    judge = _mapping(value, "judge")
    extra = [k for k in judge if k not in JUDGE_KEYS]
    if extra:
        raise SpecError(f"judge.{extra[0]}", f"unknown key ({', '.join(JUDGE_KEYS)})")
    count = judge.get("sampling_count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise SpecError("judge.sampling_count", "must be a whole number of at least 1")
    flip = judge.get("flip_enabled")
    if flip is not None and not isinstance(flip, bool):
        raise SpecError("judge.flip_enabled", "must be true or false")
    return Judge(_text(judge.get("model"), "judge.model") or "", count, flip)


def _target(value: Any) -> Target | None:
    if value is None:
        return None
    raw = _mapping(value, "target")
    extra = [k for k in raw if k not in TARGET_KEYS]
    if extra:
        raise SpecError(f"target.{extra[0]}", f"unknown key ({', '.join(TARGET_KEYS)})")
    for key in ("model_id", "prompt"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise SpecError(f"target.{key}", "required (a string)")
    target = Target(
        url=_text(raw.get("url"), "target.url") or "",
        model_id=raw["model_id"],
        prompt=raw["prompt"],
        format=_text(raw.get("format"), "target.format") or "nim",
        api_key_env=_text(raw.get("api_key_env"), "target.api_key_env"),
        kind=_text(raw.get("kind"), "target.kind") or "chat",
        system=_text(raw.get("system"), "target.system"),
        params=_mapping(raw.get("params"), "target.params"),
    )
    from evald.targets.base import FORMATS

    if target.format not in FORMATS:
        raise SpecError("target.format", f"one of {', '.join(sorted(FORMATS))}")
    if target.kind not in ("chat", "completion"):
        raise SpecError("target.kind", "chat or completion")
    if target.format != "gemini" and not target.url:
        raise SpecError("target.url", "required for an OpenAI-compatible endpoint")
    if target.kind == "completion" and target.system is not None:
        raise SpecError("target.system", "a completion has no system message: use kind: chat")
    if target.api_key_env is not None and not os.environ.get(target.api_key_env):
        raise SpecError("target.api_key_env", f"{target.api_key_env} is not set")
    return target


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald evaluate -c``; returns the exit code."""
    name = str(args.eval_file)
    try:
        if args.eval_file is None:
            raise SpecError("--min-pass-rate", "goes with --eval-file")
        given = [f for f in _OTHER_FLAGS if getattr(args, f, None)]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise SpecError(flag, "does not go with --eval-file: the eval file names it")
        if args.concurrency < 1:
            raise SpecError("--concurrency", "must be at least 1")
        if args.min_pass_rate is not None and not 0 <= args.min_pass_rate <= 1:
            raise SpecError("--min-pass-rate", "must be from 0 to 1")
    except SpecError as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        evals = load(args.eval_file)
    except SpecError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from evald.cli.evaluate import RunFailed, UsageError, parse_metric

    try:
        server = bool(args.server or (evals.server and not args.local))
        metrics = [(text, parse_metric(text, args.aggregation, server)) for text in evals.metrics]
    except UsageError as exc:  # the names are valid: an --aggregation is not
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    scoring = argparse.Namespace(**vars(args))
    if not args.server and not args.local and evals.server:
        scoring.server = evals.server
    try:
        records = asyncio.run(_run(scoring, evals, metrics))
    except RunFailed as exc:
        print(f"evald evaluate: {exc}", file=sys.stderr)
        return EXIT_FAILED
    threshold = evals.threshold if args.min_pass_rate is None else args.min_pass_rate
    return _finish(args, evals, metrics, records, threshold)


async def _run(
    args: argparse.Namespace, evals: EvalFile, metrics: list[tuple[str, Any]]
) -> list[dict[str, Any]]:
    """Every row's record: its results and its assertions' outcomes."""
    from evald.cli.evaluate import RunFailed, _evaluator
    from evald.jobs.rows import metric_labels

    needs_scoring = bool(metrics) or any(
        a.type == "rubric" for test in evals.tests for a in test.assertions
    )
    evaluate, close = await _evaluator(args) if needs_scoring else (None, None)
    generate = _Generator(evals.target) if evals.target is not None else None
    labels = metric_labels([choice.metric for _, choice in metrics])
    autorater = evals.judge.autorater_config() if evals.judge is not None else None
    tests = evals.tests
    records: list[dict[str, Any] | None] = [None] * len(tests)
    progress = None if args.quiet else Progress(len(tests))
    pending = iter(range(len(tests)))
    done = failed = 0

    async def worker() -> None:
        nonlocal done, failed
        for index in pending:
            test = tests[index]
            row, problem = dict(test.row), None
            if generate is not None:
                row, problem = await generate(row)
            if problem is None:
                record, outcomes = await assertions.check_row(
                    evaluate, index, row, test.assertions, metrics, autorater
                )
            else:
                # Every metric errs on a row without a response, as on a row it cannot score.
                error = {"code": "UNAVAILABLE", "message": f"target: {problem}"}
                results = [
                    {"metric": label, "score": None, "explanation": None, "error": error}
                    for label in labels
                ]
                record = {"row": index, "input": row, "results": results, "target_error": problem}
                outcomes = [Outcome(False, f"target: {problem}") for _ in test.assertions]
            record["test"] = test.where
            if test.description is not None:
                record["description"] = test.description
            record["assertions"] = [
                o.to_json(a) for a, o in zip(test.assertions, outcomes, strict=True)
            ]
            record["passed"] = all(o.passed for o in outcomes)
            records[index] = record
            done += 1
            failed += not record["passed"]
            if progress is not None:
                progress.update(done, failed)

    try:
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    finally:
        if close is not None:
            await close()
        if progress is not None:
            progress.close()
        if generate is not None:
            await generate.close()
    found = [r for r in records if r is not None]
    errors = [r["target_error"] for r in found if "target_error" in r]
    if found and len(errors) == len(found):
        raise RunFailed(f"the target failed on every row: {errors[0]}")
    return found


class _Generator:
    """Renders a row's prompt and asks the target for its response (no cache: an eval run
    wants the model's current answers)."""

    def __init__(self, target: Target) -> None:
        from evald.config import Settings
        from evald.targets import Endpoint, Targets

        settings = Settings.load()
        self.target = target
        self.endpoint = Endpoint(
            target.url,
            target.model_id,
            os.environ.get(target.api_key_env) if target.api_key_env else None,
            target.format,
        )
        self.targets = Targets(
            cache_path=None,
            max_concurrency=settings.target_concurrency,
            timeout_seconds=settings.target_timeout_seconds,
        )

    async def __call__(self, row: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """The row with the target's ``response`` (and the rendered ``prompt`` when the row had
        none), or the row and why no response came."""
        from evald.targets import Generation, TargetError

        target = self.target
        try:
            prompt = assertions.render(target.prompt, row)
        except assertions.TemplateError as exc:
            return row, f"prompt: {exc}"
        if target.kind == "completion":
            generation = Generation("completion", prompt=prompt, params=target.params)
        else:
            messages = [{"role": "user", "content": prompt}]
            if target.system is not None:
                messages.insert(0, {"role": "system", "content": target.system})
            generation = Generation("chat", messages=tuple(messages), params=target.params)
        try:
            output = await self.targets.generate(self.endpoint, generation, use_cache=False)
        except TargetError as exc:
            return row, exc.reason
        return {"prompt": prompt, **row, "response": output.text}, None

    async def close(self) -> None:
        await self.targets.aclose()


def _finish(
    args: argparse.Namespace,
    evals: EvalFile,
    metrics: list[tuple[str, Any]],
    records: list[dict[str, Any]],
    threshold: float,
) -> int:
    """Write the outputs, print the summary; the exit code."""
    from evald.jobs import outputs, rows

    found = outputs.summaries([choice.metric for _, choice in metrics], records)
    errored = sum(1 for r in records if rows.failed(r))
    aggregation = outputs.aggregation_json(found, len(records), errored)
    passed = sum(1 for r in records if r["passed"])
    rate = passed / len(records)
    aggregation["assertions"] = {
        "rows_passed": passed,
        "pass_rate": rate,
        "threshold": threshold,
        "by_assertion": _tally(evals, records),
    }
    args.output.mkdir(parents=True, exist_ok=True)
    outputs.write(str(args.output), [rows.dumps(r) for r in records], aggregation, None)
    title = f"evald report: {evals.description or evals.path.name}"
    page = report.html_report(title, aggregation, records)
    end = page.rindex("</body>")
    page = page[:end] + _assertions_html(aggregation["assertions"], records) + "\n" + page[end:]
    (args.output / "report.html").write_text(page, encoding="utf-8")
    if metrics:
        print(report.summary_table(aggregation) + "\n")
    tally = aggregation["assertions"]["by_assertion"]
    if tally:
        width = max(len(t["assertion"]) for t in tally)
        print("assertion".ljust(width) + "  passed  check")
        for t in tally:
            count = f"{t['passed']}/{t['total']}"
            print(f"{t['assertion'].ljust(width)}  {count.rjust(6)}  {t['label']}")
        print()
    print(f"pass rate: {rate:.1%} ({passed}/{len(records)} rows), required {threshold:.1%}")
    shown = 0
    for record in records:
        for outcome in record["assertions"]:
            if not outcome["passed"] and shown < 10:
                # A row's own assertion's path names the row already: tests[2].assert[0].
                where = outcome["assertion"]
                if not where.startswith(record["test"] + "."):
                    where = f"{record['test']} {where}"
                description = f" ({record['description']})" if "description" in record else ""
                print(
                    f"FAIL {where}{description} {outcome['type']}: {outcome['reason']}",
                    file=sys.stderr,
                )
                shown += 1
    print(f"\nresults: {args.output / outputs.RESULTS_FILE}", file=sys.stderr)
    print(f"report:  {args.output / 'report.html'}", file=sys.stderr)
    return EXIT_OK if rate >= threshold else EXIT_ASSERTIONS


def _assertions_html(summary: Mapping[str, Any], records: Sequence[dict[str, Any]]) -> str:
    """The report's section on assertions: the pass rate, each assertion's count, and the
    failed assertions with their reasons."""

    def cell(value: Any) -> str:
        text = str(value)
        return html.escape(text if len(text) <= 300 else text[:300] + "…")

    parts = [
        '<section id="assertions"><h2>Assertions</h2>',
        f"<p>pass rate {summary['pass_rate']:.1%} ({summary['rows_passed']}/{len(records)} "
        f"rows), required {summary['threshold']:.1%}</p>",
        "<table><tr><th>assertion</th><th>check</th><th>passed</th></tr>",
    ]
    for t in summary["by_assertion"]:
        parts.append(
            f"<tr><td>{cell(t['assertion'])}</td><td>{cell(t['label'])}</td>"
            f'<td class="num">{t["passed"]}/{t["total"]}</td></tr>'
        )
    parts.append("</table>")
    failed = [(r, o) for r in records for o in r["assertions"] if not o["passed"]]
    if failed:
        parts.append(
            "<h3>Failed</h3><table><tr><th>row</th><th>test</th><th>assertion</th>"
            "<th>reason</th></tr>"
        )
        for record, outcome in failed[:MAX_FAILED_SHOWN]:
            parts.append(
                f'<tr class="err"><td class="num">{record["row"]}</td>'
                f"<td>{cell(record['test'])}</td><td>{cell(outcome['assertion'])}</td>"
                f"<td>{cell(outcome['reason'])}</td></tr>"
            )
        parts.append("</table>")
        if len(failed) > MAX_FAILED_SHOWN:
            parts.append(f"<p>… and {len(failed) - MAX_FAILED_SHOWN} more (see results.jsonl)</p>")
    parts.append("</section>")
    return "\n".join(parts)


def _tally(evals: EvalFile, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per assertion as written: how many of the rows it applies to pass it."""
    labels = {a.where: a.label for test in evals.tests for a in test.assertions}
    counts: dict[str, list[int]] = {}
    for record in records:
        for outcome in record["assertions"]:
            count = counts.setdefault(outcome["assertion"], [0, 0])
            count[0] += outcome["passed"]
            count[1] += 1
    return [
        {"assertion": where, "label": labels[where], "passed": p, "total": n}
        for where, (p, n) in counts.items()
    ]
