"""Running a NeMo Evaluator plan: rows in, model outputs, scores, and NeMo's results shape.

Shared by jobs (durable, resumable), live evaluations (in memory) and ``evald evaluate
--nemo-config``. A row is one dataset row of one task; rows are numbered across tasks in task
order, so a job's stored results are keyed by that number.

Templates see NeMo's context: every column of the row, ``item`` (the row), and ``sample`` with
``output_text`` (the model's text) and ``response`` (its whole chat or completion response);
a ``sample`` key overrides a column of the same name, as in NeMo.

A row whose model call fails (after the target's retries) or whose template fails records the
error and scores nothing; the other rows go on. A score a metric could not give (a judge answer
its parser cannot read, a number-check side without a number) is NaN: left out of the
statistics and counted under ``nan_count``, as NeMo counts it.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.rpc import code_pb2

from evald import offload
from evald.call import Call, Services
from evald.errors import (
    DeadlineExceeded,
    EvalError,
    InvalidArgument,
    Unavailable,
)
from evald.judges.base import GenerationParams, JudgeRequest
from evald.metrics.instance import TemplateRow
from evald.metrics.named.nemo.llm_judge import LlmJudge
from evald.metrics.text.jinja import render_off_loop
from evald.nemo import datasets
from evald.nemo.plan import (
    OUTPUT_COLUMNS,
    PROMPT_COLUMNS,
    REFERENCE_COLUMNS,
    MetricPlan,
    Plan,
    TaskPlan,
    endpoint_of,
)
from evald.targets import Endpoint, Generation, TargetError, Targets

ROW_SCORING_SECONDS = 60.0
"""Longest the computed metrics of one row may take (templates and kernels have their own
budgets; this bounds the rest)."""
TARGET_ERROR = "_target"
"""The ``errors`` key of a row whose output could not be had (model call, template)."""


def load_rows(plan: Plan, access: datasets.DatasetAccess) -> list[list[dict[str, Any]]]:
    """Every task's rows (blocking: run it in a thread), each list cut to the config's
    ``limit_samples``."""
    loaded: dict[Any, list[dict[str, Any]]] = {}
    found = []
    for task in plan.tasks:
        source = task.dataset
        key = (
            source.files_url,
            source.limit,
            source.hf_endpoint,
            source.cached_outputs,
            id(source.rows),
        )
        if key not in loaded:
            if source.rows is not None:
                rows = [dict(row) for row in source.rows]
                if source.limit is not None:
                    rows = rows[: source.limit]
            else:
                assert source.files_url is not None
                rows = datasets.read_rows(
                    source.files_url,
                    access,
                    field=source.field,
                    limit=source.limit,
                    hf_endpoint=source.hf_endpoint,
                )
            if source.cached_outputs:
                rows = [_cached_output(row, source.field, i) for i, row in enumerate(rows)]
            loaded[key] = rows
        rows = loaded[key]
        found.append(rows[: plan.limit] if plan.limit is not None else rows)
    return found


def _cached_output(item: Mapping[str, Any], where: str, index: int) -> dict[str, Any]:
    """An item of NeMo's ``output.json`` (``{input, response, llm_name}``) as a row."""
    given = item.get("input")
    if not isinstance(given, Mapping) or "response" not in item:
        raise InvalidArgument(where, f"item {index}: an output item is {{input, response}}")
    return {**given, "output": item["response"]}


@dataclass(frozen=True)
class Row:
    """Row ``number`` of a plan: row ``index`` of task ``task``."""

    number: int
    task: int
    index: int


def numbered(rows: Sequence[Sequence[Any]]) -> list[Row]:
    """Every row of every task, numbered in task order."""
    found: list[Row] = []
    for t, task_rows in enumerate(rows):
        for i in range(len(task_rows)):
            found.append(Row(len(found), t, i))
    return found


class Evaluation:
    """Scores the rows of one plan."""

    def __init__(
        self,
        plan: Plan,
        rows: list[list[dict[str, Any]]],
        targets: Targets,
        services: Services,
        *,
        cache_scope: str | None = None,
    ) -> None:
        self.plan = plan
        self.rows = rows
        self.targets = targets
        self.services = services
        self.cache_scope = cache_scope
        """Model outputs are cached under this scope (a job's id: a resumed job asks the model
        nothing it already answered); None: not cached (live evaluations, the CLI)."""

    async def score(self, row: Row) -> dict[str, Any]:
        """The result record of one row: ``{row, task, index, item, sample, scores, errors}``;
        never raises for a problem of the row."""
        task = self.plan.tasks[row.task]
        item = self.rows[row.task][row.index]
        record: dict[str, Any] = {
            "row": row.number,
            "task": task.name,
            "index": row.index,
            "item": item,
            "sample": None,
            "scores": {},
            "errors": {},
        }
        try:
            if task.similarity:
                item = record["item"] = _similarity_item(item, f"{task.path} row {row.index}")
            sample = await self._sample(task, item, row.index)
        except EvalError as exc:
            record["errors"][TARGET_ERROR] = _error(exc.to_status())
            return record
        if sample.get("response") is None:
            # A data task's row may hold the response itself (NeMo reads item.response).
            sample["response"] = item.get("response")
        record["sample"] = sample
        context = {**item, **sample, "item": item, "sample": sample}
        computed = [m for m in task.metrics if not m.judged]
        if computed:
            try:
                # A row has no caller's deadline in a job: this bounds a pathological template.
                results = await asyncio.wait_for(
                    offload.call(score_computed, computed, context), ROW_SCORING_SECONDS
                )
            except TimeoutError:
                late = DeadlineExceeded(f"scoring the row took more than {ROW_SCORING_SECONDS:g} s")
                results = [late] * len(computed)
            except EvalError as exc:
                results = [exc] * len(computed)
            for plan, result in zip(computed, results, strict=True):
                self._keep(record, plan, result)
        for plan in task.metrics:
            if plan.judged:
                try:
                    judge = plan.metric
                    assert isinstance(judge, LlmJudge)
                    found = await judge.nemo_judge(
                        plan.params.values, TemplateRow(context), plan.path, self.ask
                    )
                    self._keep(record, plan, found)
                except EvalError as exc:
                    self._keep(record, plan, exc)
        return record

    def _keep(self, record: dict[str, Any], plan: MetricPlan, result: Any) -> None:
        if isinstance(result, EvalError):
            record["errors"][plan.key] = _error(result.to_status())
            return
        record["scores"][plan.key] = {
            name: (None if math.isnan(value) else value) for name, value in result.items()
        }

    async def _sample(self, task: TaskPlan, item: dict[str, Any], index: int) -> dict[str, Any]:
        """``sample``: the model's output for the row (or the row's own, for data tasks)."""
        given = _given_output(item)
        if task.kind == "data" or (task.similarity and given is not None):
            if given is None:
                raise InvalidArgument(
                    f"{task.path} row {index}",
                    f"a data task reads the output from the row: give one of "
                    f"{', '.join(OUTPUT_COLUMNS)} (or a chat completion in response)",
                )
            return given
        endpoint = self.plan.endpoint
        if endpoint is None:
            raise InvalidArgument(
                f"{task.path} row {index}",
                f"the row holds no output ({', '.join(OUTPUT_COLUMNS)}) and the target is no "
                "model to ask for one",
            )
        variables = {**item, "item": item}
        generation = await self._generation(task, variables, endpoint)
        output = await self._generate(endpoint, generation, f"{task.path} row {index}")
        return {"output_text": output.text, "response": dict(output.response)}

    async def _generation(
        self, task: TaskPlan, variables: dict[str, Any], endpoint: Endpoint
    ) -> Generation:
        params = await _rendered(dict(task.inference), variables, f"{task.path}.params.template")
        if task.kind == "completion":
            prompt = await render_off_loop(task.template, variables, f"{task.path}.params.template")
            return Generation("completion", prompt=prompt, params=params)
        if task.kind == "chat":
            where = f"{task.path}.params.template.messages"
            messages = await _rendered(task.template["messages"], variables, where)
            if not (
                isinstance(messages, list)
                and messages
                and all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in messages)
            ):
                raise InvalidArgument(where, "must give a list of {role, content} messages")
            return Generation("chat", messages=tuple(messages), params=params)
        # similarity_metrics: the row's prompt, to whichever API the endpoint serves.
        if "prompt" not in variables["item"]:
            raise InvalidArgument(
                task.path, f"a row without an output needs a prompt ({' or '.join(PROMPT_COLUMNS)})"
            )
        prompt = str(variables["item"]["prompt"])
        if endpoint.format == "gemini" or endpoint.url.rstrip("/").endswith("/chat/completions"):
            return Generation(
                "chat", messages=({"role": "user", "content": prompt},), params=params
            )
        return Generation("completion", prompt=prompt, params=params)

    async def _generate(self, endpoint: Endpoint, generation: Generation, where: str) -> Any:
        plan = self.plan
        try:
            return await self.targets.generate(
                endpoint,
                generation,
                timeout=plan.request_timeout,
                max_retries=plan.max_retries,
                use_cache=self.cache_scope is not None,
                scope=self.cache_scope or "",
            )
        except TargetError as exc:
            raise Unavailable(f"{where}: the model call failed: {exc.reason}") from None

    async def ask(self, model: Any, body: dict[str, Any], where: str) -> str:
        """llm-judge's judge call: an ``api_endpoint`` model through the targets, or a judge
        of evald's judge config by name."""
        if isinstance(model, Mapping):
            endpoint = endpoint_of(model.get("api_endpoint"), f"{where}.api_endpoint")
            params = {k: v for k, v in body.items() if k != "messages"}
            generation = Generation("chat", messages=tuple(body["messages"]), params=params)
            output = await self._generate(endpoint, generation, where)
            return str(output.text)
        return await self._configured_judge(str(model), body)

    async def _configured_judge(self, name: str, body: dict[str, Any]) -> str:
        system = "\n\n".join(
            str(m["content"]) for m in body["messages"] if m.get("role") == "system"
        )
        prompt = "\n\n".join(
            str(m["content"]) for m in body["messages"] if m.get("role") != "system"
        )
        params = GenerationParams(
            temperature=body.get("temperature"),
            top_p=body.get("top_p"),
            max_output_tokens=body.get("max_tokens"),
        )
        request = JudgeRequest(prompt=prompt, system_instruction=system or None, params=params)
        call = Call(self.services, use_cache=self.cache_scope is not None)
        judges = self.services.judges
        async with judges.session(call) as session:
            target = session.runtime.resolve(name)
            answer = await session.ask(target, request, 0, str)
        return answer.text


def _given_output(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """``sample`` from a row that holds its output."""
    for column in OUTPUT_COLUMNS:
        if isinstance(item.get(column), str):
            response = item.get("response")
            return {
                "output_text": item[column],
                "response": response if isinstance(response, Mapping) else None,
            }
    response = item.get("response")
    if isinstance(response, str):
        return {"output_text": response, "response": None}
    if isinstance(response, Mapping):
        text = ""
        choices = response.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            message = choices[0].get("message")
            if isinstance(message, Mapping) and isinstance(message.get("content"), str):
                text = message["content"]
        return {"output_text": text, "response": dict(response)}
    return None


def _similarity_item(item: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A similarity_metrics row with ``prompt`` and ``ideal_response`` whichever names it
    used (``input``, ``reference``)."""
    found = dict(item)
    for name, columns in (("prompt", PROMPT_COLUMNS), ("ideal_response", REFERENCE_COLUMNS)):
        value = next((item[c] for c in columns if item.get(c) is not None), None)
        if value is None and name == "ideal_response":
            raise InvalidArgument(where, f"the row needs {' or '.join(columns)}")
        if value is not None:
            found[name] = value if isinstance(value, str) else json.dumps(value)
    return found


async def _rendered(value: Any, variables: dict[str, Any], where: str, values: bool = True) -> Any:
    """``value`` with every string rendered as a template. Where ``values`` holds (a request
    field itself, such as ``tools`` or the whole ``messages``, not text inside a message), a
    string that renders to a JSON array or object becomes that value
    (``{{ item.tools | tojson }}`` gives the tools, as in NeMo)."""
    if isinstance(value, str):
        if "{" not in value:
            return value
        text = await render_off_loop(value, variables, where)
        if values and text[:1] in "[{":
            try:
                return json.loads(text)
            except ValueError:
                return text
        return text
    if isinstance(value, Mapping):
        return {
            k: await _rendered(v, variables, f"{where}.{k}", values and k != "messages")
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [await _rendered(v, variables, f"{where}[{i}]", False) for i, v in enumerate(value)]
    return value


def score_computed(metrics: Sequence[MetricPlan], context: dict[str, Any]) -> list[Any]:
    """Runs in a scoring process: each computed metric's scores of one row (an EvalError in
    place of the scores of a metric that failed)."""
    row = TemplateRow(context)
    results: list[Any] = []
    for plan in metrics:
        try:
            results.append(plan.metric.nemo_scores(plan.params, row))
        except EvalError as exc:
            results.append(exc)
    return results


def _error(status: Any) -> dict[str, Any]:
    return {"code": code_pb2.Code.Name(status.code), "message": status.message}


def failed(record: Mapping[str, Any]) -> bool:
    """Whether anything of a row errored."""
    return bool(record["errors"])


# Results.


def stats(values: Sequence[float]) -> dict[str, Any]:
    """NeMo's score statistics: NaN values only counted under ``nan_count``; population
    variance and standard deviation; ``stderr`` the sample standard deviation over root n."""
    finite = [v for v in values if not math.isnan(v)]
    n = len(finite)
    found: dict[str, Any] = {"count": n, "nan_count": len(values) - n}
    if not n:
        return found
    total = math.fsum(finite)
    squares = math.fsum(v * v for v in finite)
    mean = total / n
    variance = max(0.0, math.fsum((v - mean) ** 2 for v in finite) / n)
    found.update(
        sum=total,
        sum_squared=squares,
        mean=mean,
        min=min(finite),
        max=max(finite),
        variance=variance,
        stddev=math.sqrt(variance),
    )
    if n > 1:
        sample_variance = variance * n / (n - 1)
        found["stderr"] = math.sqrt(sample_variance / n)
    return found


def results(plan: Plan, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """NeMo's ``tasks`` and ``groups`` of an evaluation from its row records (CPU work: run
    it off the event loop). A similarity_metrics evaluation also reports its scores over the
    rows of all its tasks under ``groups.evaluation``."""
    tasks: dict[str, Any] = {}
    pooled: dict[str, tuple[MetricPlan, list[Mapping[str, Any]]]] = {}
    for task in plan.tasks:
        mine = [r for r in records if r["task"] == task.name]
        metrics: dict[str, Any] = {}
        for metric in task.metrics:
            metrics[metric.key] = {"scores": _metric_scores(metric, mine)}
            if task.similarity:
                # Pooled by metric type: each task may name its metrics differently.
                first, rows = pooled.setdefault(str(metric.metric.nemo_type), (metric, []))
                rows.extend(
                    {**r, "scores": {first.key: r["scores"][metric.key]}}
                    for r in mine
                    if metric.key in r["scores"]
                )
        errors = sum(1 for r in mine if r["errors"])
        tasks[task.name] = {
            "metrics": metrics,
            "data": {"rows": len(mine), "rows_with_errors": errors},
        }
    groups: dict[str, Any] = {}
    if plan.similarity:
        merged: dict[str, Any] = {}
        for metric, rows in pooled.values():
            merged.update(_metric_scores(metric, rows))
        groups["evaluation"] = {"metrics": {"evaluation": {"scores": merged}}}
    return {"tasks": tasks, "groups": groups}


def _metric_scores(metric: MetricPlan, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One metric's scores (with statistics) over ``records``, and its dataset-level ones."""
    names = list(metric.metric.nemo_score_names)
    scored = [r for r in records if metric.key in r["scores"]]
    for record in scored:
        for name in record["scores"][metric.key]:
            if name not in names:
                names.append(name)
    scores: dict[str, Any] = {}
    for name in names:
        values = [
            math.nan if (v := record["scores"][metric.key].get(name)) is None else v
            for record in scored
        ]
        found = stats([v / metric.divisor for v in values])
        scores[metric.rename.get(name, name)] = {
            "value": found.get("mean", math.nan),
            "stats": found,
        }
    try:
        corpus = metric.metric.nemo_dataset_scores(
            metric.params, [TemplateRow(_context(r)) for r in scored]
        )
    except EvalError:
        corpus = {}
    for name, value in corpus.items():
        scores[metric.rename.get(name, name)] = {"value": value / metric.divisor}
    return _finite(scores)


def _context(record: Mapping[str, Any]) -> dict[str, Any]:
    """A scored row's template context again, from its record (dataset-level scores)."""
    sample = dict(record.get("sample") or {})
    item = dict(record["item"])
    return {**item, **sample, "item": item, "sample": sample}


def _finite(scores: dict[str, Any]) -> dict[str, Any]:
    """JSON has no NaN: a score without any value is null."""
    for score in scores.values():
        if isinstance(score.get("value"), float) and math.isnan(score["value"]):
            score["value"] = None
    return scores
