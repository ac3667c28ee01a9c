"""The runs read model: lists runs, loads a run's rows (cached once finished), and answers
the summary, rows, row and comparison queries of :mod:`evald.runs.routes`."""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from google.rpc import status_pb2

from evald import api
from evald.errors import InvalidArgument, NotFound
from evald.jobs import rows as job_rows
from evald.jobs.store import ACTIVE, SUCCEEDED, Job, JobStore
from evald.runs import imports, stats
from evald.runs.model import Row, metric_names, row_of

JOB_PREFIX = "job-"
JOB_KINDS = {"": "vertex", "nemo": "nemo"}
"""Job kinds that are runs, by the ``source`` they show as (FMEval model evaluations are not:
their records hold no per-metric results)."""
MAX_JOBS = 500
"""Most recent jobs listed."""
CACHED_RUNS = 8
ACTIVE_REFRESH_SECONDS = 5.0
"""A running job's rows and statistics are reloaded at most this often (its progress is
always fresh): several pages polling a large running job cost one summary per period."""
SORTS = ("row", "error", "metric")
OPERATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
"""An operation id (digits for Vertex jobs, ``eval-...`` for NeMo ones): no GLOB wildcard."""


@dataclass
class RunInfo:
    """What the runs list shows of a run."""

    id: str
    source: str
    """``vertex`` (an EvaluateDataset job), ``nemo`` (a NeMo job) or ``import``."""
    name: str
    status: str
    rows_done: int
    rows_total: int
    rows_failed: int
    metrics: list[str]
    created: float
    updated: float
    job: str | None = None
    """The job's operation name (jobs only)."""
    error: str | None = None
    version: tuple[Any, ...] = field(default=(), repr=False)
    """Changes whenever the run's rows may have changed (the cache key)."""

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "name": self.name,
            "status": self.status,
            "active": self.active,
            "progress": {
                "done": self.rows_done,
                "total": self.rows_total,
                "failed": self.rows_failed,
            },
            "metrics": self.metrics,
            "created": self.created,
            "updated": self.updated,
            "job": self.job,
            "error": self.error,
        }


@dataclass
class Loaded:
    info: RunInfo
    rows: list[Row]
    statistics: dict[str, Any] | None = None
    loaded: float = field(default_factory=time.monotonic)


class RunsService:
    """Runs over the job store ``jobs`` and the imported runs ``imported``."""

    def __init__(self, jobs: JobStore, imported: imports.ImportStore) -> None:
        self.jobs = jobs
        self.imported = imported
        self._cache: OrderedDict[str, Loaded] = OrderedDict()

    # Listing.

    async def list(self, offset: int, limit: int) -> tuple[list[RunInfo], int]:
        """Runs newest first: ``limit`` of them from ``offset``, and how many there are."""
        jobs = await self.jobs.list("", 0, MAX_JOBS)
        found = [_job_info(job) for job in jobs if job.kind in JOB_KINDS]
        found += [_import_info(run) for run in await self.imported.list()]
        found.sort(key=lambda run: (-run.created, run.id))
        return found[offset : offset + limit], len(found)

    async def info(self, run_id: str) -> RunInfo:
        """The run ``run_id``; NotFound if there is none."""
        if run_id.startswith(JOB_PREFIX):
            operation = run_id.removeprefix(JOB_PREFIX)
            if OPERATION_ID.match(operation):
                # projects/P/locations/L/operations/ID (Vertex), nemo/jobs/ID (NeMo)
                found = await self.jobs.glob(f"*/{operation}", 0, 1)
                if found and found[0].kind in JOB_KINDS:
                    return _job_info(found[0])
        elif run_id.startswith(imports.ID_PREFIX):
            run = await self.imported.get(run_id)
            if run is not None:
                return _import_info(run)
        raise NotFound(f"run {run_id!r} does not exist")

    # One run.

    async def load(self, run_id: str) -> Loaded:
        """The run and its rows (cached until the run changes)."""
        info = await self.info(run_id)
        cached = self._cache.get(run_id)
        fresh = cached is not None and (
            cached.info.version == info.version
            or (info.active and time.monotonic() - cached.loaded < ACTIVE_REFRESH_SECONDS)
        )
        if cached is not None and fresh:
            self._cache.move_to_end(run_id)
            info.metrics = info.metrics or cached.info.metrics
            cached.info = info
            return cached
        if info.job is not None:
            lines = await self.jobs.results(info.job)
        else:
            lines = await self.imported.records(run_id)
        rows = await asyncio.to_thread(_rows, lines)
        if not info.metrics:
            info.metrics = metric_names(rows)
        loaded = Loaded(info, rows)
        self._cache[run_id] = loaded
        while len(self._cache) > CACHED_RUNS:
            self._cache.popitem(last=False)
        return loaded

    async def run(self, run_id: str) -> dict[str, Any]:
        """A run with its summary table, histograms, categories and error groups."""
        loaded = await self.load(run_id)
        if loaded.statistics is None:
            loaded.statistics = await asyncio.to_thread(stats.run_statistics, loaded.rows)
        return {"run": loaded.info.to_json(), **loaded.statistics}

    async def rows(self, run_id: str, query: RowQuery) -> dict[str, Any]:
        """A page of the run's rows, filtered and sorted by ``query``."""
        loaded = await self.load(run_id)
        if query.metric is not None and query.metric not in loaded.info.metrics:
            names = ", ".join(loaded.info.metrics) or "none"
            raise InvalidArgument("metric", f"the run has no metric {query.metric!r} ({names})")
        found = await asyncio.to_thread(query.apply, loaded.rows)
        page = found[query.offset : query.offset + query.limit]
        return {
            "run": loaded.info.to_json(),
            "total": len(found),
            "offset": query.offset,
            "limit": query.limit,
            "rows": [_row_brief(row) for row in page],
        }

    async def row(self, run_id: str, index: int) -> dict[str, Any]:
        """One row in full."""
        loaded = await self.load(run_id)
        for row in loaded.rows:
            if row.index == index:
                return {"run": loaded.info.to_json(), **_row_full(row)}
        raise NotFound(f"run {run_id!r} has no row {index}")

    async def compare(self, a: str, b: str) -> dict[str, Any]:
        """Run ``b`` against run ``a``; InvalidArgument unless both are over the same dataset."""
        first, second = await self.load(a), await self.load(b)
        try:
            stats.check_same_dataset(first.rows, second.rows)
        except stats.Mismatch as exc:
            raise InvalidArgument("b", str(exc)) from None
        found = await asyncio.to_thread(stats.compare, first.rows, second.rows)
        return {"a": first.info.to_json(), "b": second.info.to_json(), **found}

    async def import_run(self, name: str, results: str, aggregation: str | None) -> RunInfo:
        """Check and store an imported ``evald evaluate`` output."""
        parsed = await asyncio.to_thread(imports.parse, name, results, aggregation)
        return _import_info(await self.imported.add(parsed))

    async def delete(self, run_id: str) -> None:
        """Forget an imported run (jobs are deleted through their own API)."""
        if not run_id.startswith(imports.ID_PREFIX) or not await self.imported.delete(run_id):
            raise NotFound(f"imported run {run_id!r} does not exist")
        self._cache.pop(run_id, None)


@dataclass
class RowQuery:
    """Which rows to list and in what order."""

    has_error: bool | None = None
    metric: str | None = None
    """The metric that ``min``/``max`` and ``sort=metric`` refer to."""
    min: float | None = None
    max: float | None = None
    text: str = ""
    sort: str = "row"
    descending: bool = False
    offset: int = 0
    limit: int = 50

    def apply(self, rows: Sequence[Row]) -> list[Row]:
        needle = self.text.lower()
        found = []
        for row in rows:
            if self.has_error is not None and bool(row.errors()) != self.has_error:
                continue
            if self.min is not None or self.max is not None:
                score = row.scores.get(self.metric or "")
                if score is None or not math.isfinite(score):
                    continue
                if self.min is not None and score < self.min:
                    continue
                if self.max is not None and score > self.max:
                    continue
            if needle and needle not in row.search_text():
                continue
            found.append(row)
        if self.sort == "error":  # descending: most errors first
            count = -1 if self.descending else 1
            found.sort(key=lambda r: (count * len(r.errors()), r.index))
        elif self.sort == "metric":
            metric = self.metric or ""

            def key(row: Row) -> tuple[int, float, int]:
                score = row.scores.get(metric)
                missing = score is None or not math.isfinite(score)
                value = 0.0 if missing or score is None else score
                # Unscored rows last in either direction.
                return (1 if missing else 0, -value if self.descending else value, row.index)

            found.sort(key=key)
        elif self.descending:
            found.reverse()
        return found


def _rows(lines: Sequence[str]) -> list[Row]:
    return [row_of(json.loads(line), i) for i, line in enumerate(lines)]


def _job_info(job: Job) -> RunInfo:
    source = JOB_KINDS[job.kind]
    operation = job.name.rsplit("/", 1)[-1]
    name, metrics = _describe(job)
    error = None
    if job.error:
        error = status_pb2.Status.FromString(job.error).message
    return RunInfo(
        id=JOB_PREFIX + operation,
        source=source,
        name=name,
        status=job.state,
        rows_done=job.rows_done,
        rows_total=job.rows_total,
        rows_failed=job.rows_failed,
        metrics=metrics,
        created=job.create_time,
        updated=job.update_time,
        job=job.name,
        error=error,
        version=(job.update_time, job.rows_done, job.state),
    )


def _describe(job: Job) -> tuple[str, list[str]]:
    """A job's display name and metric names (as far as its request says)."""
    try:
        if job.kind == "":
            request = api.messages.EvaluateDatasetRequest.FromString(job.request)
            uris = list(request.dataset.gcs_source.uris)
            dataset = PurePosixPath(uris[0]).name if uris else "dataset"
            return dataset, job_rows.metric_labels(list(request.metrics))
        stored = json.loads(job.request)
        body = stored.get("job", {})
        config = body.get("config")
        named = config if isinstance(config, str) else (config or {}).get("name")
        return f"NeMo {named or body.get('id', 'job')}", []
    except Exception:  # an unreadable request still lists, by its operation id
        return job.name.rsplit("/", 1)[-1], []


def _import_info(run: imports.Imported) -> RunInfo:
    return RunInfo(
        id=run.id,
        source="import",
        name=run.name,
        status=SUCCEEDED,
        rows_done=run.rows_total,
        rows_total=run.rows_total,
        rows_failed=0,
        metrics=run.metrics,
        created=run.created,
        updated=run.created,
        version=(run.created,),
    )


PREVIEW_CHARS = 300
RESULT_FIELDS = ("metric", "score", "explanation", "error")


def _preview(value: str | None) -> str | None:
    if value is None or len(value) <= PREVIEW_CHARS:
        return value
    return value[:PREVIEW_CHARS] + "…"


def _row_brief(row: Row) -> dict[str, Any]:
    return {
        "index": row.index,
        "prompt": _preview(row.prompt),
        "response": _preview(row.response),
        "reference": _preview(row.reference),
        "category": row.category,
        "scores": {m: stats.finite(s) for m, s in row.scores.items()},
        "errors": {
            m: (e.get("message") if isinstance(e, dict) else str(e))
            for m, e in row.errors().items()
        },
    }


def _row_full(row: Row) -> dict[str, Any]:
    record = row.record
    source = record.get("input") if isinstance(record.get("input"), dict) else record.get("item")
    metrics = []
    for result in row.results:
        item = {k: v for k, v in result.items() if k not in RESULT_FIELDS}
        score = row.scores.get(result["metric"])
        metrics.append(
            {
                "metric": result["metric"],
                "score": stats.finite(score),
                "nan": score is not None and math.isnan(score),
                "explanation": result.get("explanation"),
                "error": result.get("error"),
                "details": item,
            }
        )
    extra = {k: v for k, v in record.items() if k not in ("row", "input", "results", "item")}
    return {
        "index": row.index,
        "prompt": row.prompt,
        "response": row.response,
        "reference": row.reference,
        "category": row.category,
        "input": source if isinstance(source, dict) else {},
        "metrics": metrics,
        "extra": extra,
    }
