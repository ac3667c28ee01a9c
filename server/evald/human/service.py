"""Human-evaluation tasks: creating them (from a dataset or a finished run), assigning rows to
raters, storing ratings, reports and exports. Transport-free: :mod:`evald.human.routes` serves
it over HTTP and decides who the caller is.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evald.errors import FailedPrecondition, InvalidArgument, NotFound
from evald.human import report as reports
from evald.human.mechanisms import Kind, check_kind
from evald.human.store import HumanStore, Rating, StoredTask
from evald.jobs import sources
from evald.jobs.store import SUCCEEDED, JobStore
from evald.runs.imports import ID_PREFIX as IMPORT_PREFIX
from evald.runs.imports import ImportStore
from evald.runs.service import JOB_PREFIX

MAX_ROWS = 10_000
MAX_TEXT = 20_000
"""Longest task name/instructions, in characters."""
MAX_RATERS = 100
DEFAULT_COLUMNS = ("response", "baseline_response")
"""The dataset columns of the first and second model's responses unless a model names one."""
RATER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 100
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def assigned(row: int, raters: Sequence[str], per_row: int) -> list[str]:
    """The raters of ``row``: ``per_row`` consecutive raters in the task's order, starting
    ``row * per_row`` along (wrapping), so the rows are shared out evenly and every rater
    rates a run of consecutive rows' worth of work."""
    n = len(raters)
    return [raters[(row * per_row + j) % n] for j in range(per_row)]


def kind_of(task: StoredTask) -> Kind:
    spec = task.spec
    names = tuple(m["name"] for m in spec["models"])
    return Kind(spec["mechanism"], names, spec["scale"], spec["allow_tie"])


def task_json(task: StoredTask) -> dict[str, Any]:
    return {
        "id": task.id,
        **task.spec,
        "rows": task.rows_total,
        "create_time": task.create_time,
        "creator": task.creator,
    }


def _text(value: Any, field: str, limit: int = MAX_TEXT) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidArgument(field, "must be a string")
    if len(value) > limit:
        raise InvalidArgument(field, f"at most {limit} characters")
    return value


def _cell(value: Any) -> str:
    """A dataset cell as shown to raters: text as is, anything else as its JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return json.dumps(value, ensure_ascii=False)


def _models(raw: Any) -> list[dict[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise InvalidArgument("models", "name the models whose responses are rated (1 or 2)")
    models = []
    for i, item in enumerate(raw):
        field = f"models[{i}]"
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or set(item) - {"name", "column"}:
            raise InvalidArgument(field, "a model is a name, or an object with name and column")
        name = item.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise InvalidArgument(f"{field}.name", "a non-empty name of at most 200 characters")
        default = DEFAULT_COLUMNS[i] if i < len(DEFAULT_COLUMNS) else ""
        column = item.get("column", default)
        if not isinstance(column, str) or not column:
            raise InvalidArgument(f"{field}.column", "the dataset column holding its responses")
        models.append({"name": name, "column": column})
    names = [m["name"] for m in models]
    if len(set(names)) != len(names):
        raise InvalidArgument("models", "model names must differ")
    if "pair" in names:
        raise InvalidArgument("models", "'pair' is reserved")
    return models


def _raters(raw: Any, per_row: Any) -> tuple[list[str], int]:
    if not isinstance(raw, list) or not raw or len(raw) > MAX_RATERS:
        raise InvalidArgument("raters", f"name 1..{MAX_RATERS} raters (their API key names)")
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not RATER_NAME.match(name):
            raise InvalidArgument(f"raters[{i}]", "letters, digits and _.@- (at most 64)")
    if len(set(raw)) != len(raw):
        raise InvalidArgument("raters", "each rater once")
    if per_row is None:
        per_row = 1
    if isinstance(per_row, bool) or not isinstance(per_row, int) or not 1 <= per_row <= len(raw):
        raise InvalidArgument(
            "raters_per_row", f"an integer from 1 to the raters' number ({len(raw)})"
        )
    return list(raw), per_row


class HumanService:
    """Human-evaluation tasks kept in ``store``; runs read from ``jobs`` (Vertex dataset jobs)
    and ``imported`` (imported ``evald evaluate`` outputs), server-local datasets from under
    ``dataset_root``."""

    def __init__(
        self,
        store: HumanStore,
        jobs: JobStore | None,
        dataset_root: Path | None,
        imported: ImportStore | None = None,
    ) -> None:
        self.store = store
        self.jobs = jobs
        self.dataset_root = dataset_root
        self.imported = imported

    # Tasks.

    async def create_task(self, body: Any, creator: str) -> dict[str, Any]:
        """Create a task from a request body (see docs/human-evaluation.md)."""
        if not isinstance(body, dict):
            raise InvalidArgument("", "the body is a JSON object")
        known = {
            "name",
            "mechanism",
            "models",
            "instructions",
            "raters",
            "raters_per_row",
            "scale",
            "allow_tie",
            "dataset",
        }
        unknown = sorted(set(body) - known)
        if unknown:
            raise InvalidArgument(unknown[0], f"unknown field; known: {sorted(known)}")
        models = _models(body.get("models"))
        kind = check_kind(
            body.get("mechanism"),
            [m["name"] for m in models],
            body.get("scale"),
            body.get("allow_tie"),
        )
        raters, per_row = _raters(body.get("raters"), body.get("raters_per_row"))
        name = _text(body.get("name"), "name", 200)
        instructions = _text(body.get("instructions"), "instructions")
        raw, source = await self._dataset(body.get("dataset"))
        if not raw:
            raise InvalidArgument("dataset", "the dataset has no rows")
        if len(raw) > MAX_ROWS:
            raise InvalidArgument("dataset", f"at most {MAX_ROWS} rows per task")
        rows = [self._row(i, row, models) for i, row in enumerate(raw)]
        spec = {
            "name": name or f"{kind.mechanism} of {', '.join(kind.models)}",
            "mechanism": kind.mechanism,
            "models": models,
            "instructions": instructions,
            "raters": raters,
            "raters_per_row": per_row,
            "scale": kind.scale,
            "allow_tie": kind.allow_tie,
            "source": source,
        }
        task = StoredTask(secrets.token_hex(6), spec, len(rows), time.time(), creator)
        await self.store.create(task, rows)
        return task_json(task)

    @staticmethod
    def _row(index: int, row: dict[str, Any], models: list[dict[str, str]]) -> dict[str, Any]:
        where = f"dataset row {index}"
        if row.get("prompt") is None:
            raise InvalidArgument("dataset", f"{where} has no 'prompt'")
        responses = {}
        for model in models:
            value = row.get(model["column"])
            if value is None:
                raise InvalidArgument(
                    "dataset", f"{where} has no '{model['column']}' (model {model['name']!r})"
                )
            responses[model["name"]] = _cell(value)
        found: dict[str, Any] = {"prompt": _cell(row["prompt"]), "responses": responses}
        if row.get("reference") is not None:
            found["reference"] = _cell(row["reference"])
        return found

    async def _dataset(self, raw: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The rows a ``dataset`` field names, and what to record as the task's source."""
        if not isinstance(raw, dict) or len(raw) != 1:
            raise InvalidArgument(
                "dataset", "give exactly one of rows (a list), jsonl (text), path, run"
            )
        ((which, value),) = raw.items()
        if which == "rows":
            if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
                raise InvalidArgument("dataset.rows", "a list of JSON objects")
            return value, {"kind": "inline"}
        if which == "jsonl":
            if not isinstance(value, str):
                raise InvalidArgument("dataset.jsonl", "JSONL text")
            rows = await asyncio.to_thread(sources.parse, value, "inline.jsonl", "dataset.jsonl")
            return rows, {"kind": "inline"}
        if which == "path":
            if not isinstance(value, str) or not value:
                raise InvalidArgument("dataset.path", "a file under the server's dataset root")
            rows = await asyncio.to_thread(
                sources.read_rows, [value], self.dataset_root, "dataset.path"
            )
            return rows, {"kind": "path", "path": value}
        if which == "run":
            job = await self._run(value, "dataset.run")
            records = await self._records(job)
            if not all(isinstance(r.get("input"), dict) for r in records):
                raise InvalidArgument("dataset.run", "the run's records hold no dataset rows")
            return [dict(r["input"]) for r in records], {"kind": "run", "run": job}
        raise InvalidArgument(
            "dataset", "give exactly one of rows (a list), jsonl (text), path, run"
        )

    async def _run(self, value: Any, field: str) -> str:
        """A finished run: a SUCCEEDED Vertex dataset job (its stored name, from its name, its
        ID or the web UI's ``job-<ID>``) or an imported run (``imp-...``)."""
        if not isinstance(value, str) or not value:
            raise InvalidArgument(field, "a dataset job's operation name or ID, or a run ID")
        if value.startswith(IMPORT_PREFIX) and self.imported is not None:
            if await self.imported.get(value) is None:
                raise NotFound(f"{field}: no run {value!r}")
            return value
        if self.jobs is None:
            raise FailedPrecondition(f"{field}: this server keeps no dataset jobs")
        name = value.removeprefix(JOB_PREFIX)
        if "/" not in name:
            if not ID_PATTERN.match(name):
                raise InvalidArgument(field, "a dataset job's operation name or ID, or a run ID")
            found = await self.jobs.glob(f"projects/*/locations/*/operations/{name}", 0, 2)
            if len(found) != 1:
                raise NotFound(f"{field}: no dataset job {value!r}")
            name = found[0].name
        job = await self.jobs.get(name)
        if job is None or job.kind != "":
            raise NotFound(f"{field}: no dataset job {value!r}")
        if job.state != SUCCEEDED:
            raise FailedPrecondition(f"{field}: the job {value!r} has not succeeded ({job.state})")
        return name

    async def _records(self, run: str) -> list[dict[str, Any]]:
        if run.startswith(IMPORT_PREFIX) and self.imported is not None:
            lines = await self.imported.records(run)
        else:
            assert self.jobs is not None
            lines = await self.jobs.results(run)
        return await asyncio.to_thread(lambda: [json.loads(line) for line in lines])

    async def list_tasks(self) -> list[dict[str, Any]]:
        """Every task with its rating progress."""
        found = []
        for task in await self.store.list():
            item = task_json(task)
            item["ratings"] = await self.store.count(task.id)
            item["ratings_expected"] = self._expected(task)
            found.append(item)
        return found

    @staticmethod
    def _expected(task: StoredTask, rater: str | None = None) -> int:
        """How many ratings complete the task (or one rater's share of it)."""
        kind = kind_of(task)
        spec = task.spec
        rows = task.rows_total
        if rater is not None:
            rows = sum(
                1
                for i in range(rows)
                if rater in assigned(i, spec["raters"], spec["raters_per_row"])
            )
            return rows * len(kind.items)
        return rows * int(spec["raters_per_row"]) * len(kind.items)

    async def task(self, task_id: str, rater: str | None = None) -> StoredTask:
        """The task ``task_id``; with ``rater``, only if assigned to that rater (else NotFound,
        exactly as for a task that does not exist)."""
        task = await self.store.get(task_id)
        if task is None or (rater is not None and rater not in task.spec["raters"]):
            raise NotFound(f"human-evaluation task {task_id!r} does not exist")
        return task

    async def delete(self, task_id: str) -> None:
        if not await self.store.delete(task_id):
            raise NotFound(f"human-evaluation task {task_id!r} does not exist")

    async def my_tasks(self, rater: str) -> list[dict[str, Any]]:
        """The tasks assigned to ``rater``, with that rater's progress."""
        found = []
        for task in await self.store.list():
            if rater in task.spec["raters"]:
                item = task_json(task)
                item["ratings"] = await self.store.count(task.id, rater)
                item["ratings_expected"] = self._expected(task, rater)
                found.append(item)
        return found

    # Rating.

    async def queue(self, task: StoredTask, rater: str) -> dict[str, Any]:
        """The rows assigned to ``rater``, which are done, and the first not done."""
        spec = task.spec
        mine = [
            i
            for i in range(task.rows_total)
            if rater in assigned(i, spec["raters"], spec["raters_per_row"])
        ]
        items = kind_of(task).items
        rated: dict[int, set[str]] = {}
        for r in await self.store.ratings(task.id, rater=rater):
            rated.setdefault(r.row, set()).add(r.item)
        done = [set(items) <= rated.get(i, set()) for i in mine]
        following = next((i for i, d in zip(mine, done, strict=True) if not d), None)
        return {
            "rows": mine,
            "done": done,
            "next": following,
            "completed": sum(done),
            "total": len(mine),
        }

    def _check_row(self, task: StoredTask, index: int, rater: str | None) -> None:
        if not 0 <= index < task.rows_total:
            raise NotFound(f"task {task.id!r} has no row {index}")
        spec = task.spec
        if rater is not None and rater not in assigned(
            index, spec["raters"], spec["raters_per_row"]
        ):
            raise NotFound(f"row {index} of task {task.id!r} is not assigned to {rater!r}")

    async def row(self, task: StoredTask, index: int, rater: str | None) -> dict[str, Any]:
        """Row ``index`` with ``rater``'s ratings of it (``rater`` None: an admin looking)."""
        self._check_row(task, index, rater)
        data = await self.store.row(task.id, index)
        assert data is not None
        ratings = [] if rater is None else await self.store.ratings(task.id, rater, index)
        return {"row": index, **data, "ratings": {r.item: r.value for r in ratings}}

    async def rate(self, task: StoredTask, index: int, rater: str, body: Any) -> dict[str, Any]:
        """Store ``rater``'s rating of row ``index`` (replacing an earlier one)."""
        if not isinstance(body, dict):
            raise InvalidArgument("", "the body is a JSON object")
        unknown = sorted(set(body) - {"model", "value", "rater"})
        if unknown:
            raise InvalidArgument(unknown[0], "unknown field; known: model, rater, value")
        if "value" not in body:
            raise InvalidArgument("value", "required")
        self._check_row(task, index, rater)
        kind = kind_of(task)
        item = kind.check_item(body.get("model"))
        value = kind.check_value(body["value"])
        return (await self.store.rate(task.id, index, rater, item, value)).json()

    # Results.

    async def ratings(
        self, task: StoredTask, rater: str | None, row: int | None, size: int, offset: int
    ) -> dict[str, Any]:
        found = await self.store.ratings(task.id, rater, row, offset, size + 1)
        page = found[:size]
        more = len(found) > size
        return {
            "ratings": [r.json() for r in page],
            "next_page_token": str(offset + size) if more else "",
        }

    async def export(self, task: StoredTask) -> bytes:
        """Every rating of the task as JSONL, with the model names it compares."""
        found = await self.store.ratings(task.id)

        def lines() -> bytes:
            return "".join(json.dumps(r.json(), ensure_ascii=False) + "\n" for r in found).encode()

        return await asyncio.to_thread(lines)

    async def report(
        self, task: StoredTask, run: str | None = None, metric: str | None = None
    ) -> dict[str, Any]:
        """The task's report; with ``run`` and ``metric``, also Spearman's correlation between
        the mean human score of each row and that metric's score in that run."""
        if (run is None) != (metric is None):
            raise InvalidArgument("run" if run is None else "metric", "give both run and metric")
        found: list[Rating] = await self.store.ratings(task.id)
        spec = task.spec
        kind = kind_of(task)
        result = await asyncio.to_thread(
            reports.report, kind, task.rows_total, spec["raters"], spec["raters_per_row"], found
        )
        result["task"] = task.id
        if run is not None and metric is not None:
            job = await self._run(run, "run")
            scores = self._scores(await self._records(job), metric)
            result["judge"] = {
                "run": job,
                "metric": metric,
                "spearman": reports.judge_agreement(kind, found, scores),
            }
        return result

    @staticmethod
    def _scores(records: list[dict[str, Any]], metric: str) -> dict[int, float]:
        scores: dict[int, float] = {}
        names: set[str] = set()
        for record in records:
            for result in record.get("results", []):
                names.add(result["metric"])
                if result["metric"] == metric and result.get("score") is not None:
                    scores[int(record["row"])] = float(result["score"])
        if metric not in names:
            raise InvalidArgument(
                "metric", f"the run has no metric {metric!r}; it has {sorted(names)}"
            )
        return scores
