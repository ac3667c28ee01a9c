"""NeMo Evaluator's API operations, whatever carries them (:mod:`evald.nemo.routes` over HTTP).

Jobs run on the same engine as Vertex ``EvaluateDataset`` jobs (:class:`evald.jobs.runner.
JobRunner`): stored as ``nemo/jobs/<id>`` with the job's JSON (its config and target resolved
when it was created, so later edits of a stored config do not change it), resumed after a
restart without scoring a stored row again, and, through the targets' cache, without calling
the model again for a row whose output it already had.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.rpc import status_pb2

from evald.call import Services
from evald.errors import FailedPrecondition, InvalidArgument, NotFound, ResourceExhausted
from evald.jobs import outputs
from evald.jobs.runner import JobRunner
from evald.jobs.store import (
    CANCELLED,
    CANCELLING,
    FAILED,
    FINISHED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    Job,
)
from evald.metrics.catalog import Catalog
from evald.nemo import datasets, evaluation, plan
from evald.nemo.entities import DEFAULT_NAMESPACE, Entities, new_id, now
from evald.targets import Targets

PREFIX = "nemo/jobs/"
KIND = "nemo"
STATUS = {
    QUEUED: "pending",
    RUNNING: "running",
    CANCELLING: "cancelling",
    CANCELLED: "cancelled",
    FAILED: "failed",
    SUCCEEDED: "completed",
}
REDACTED = "*****"
RESULTS_FILE = "results.json"
ROWS_FILE = "rows.jsonl"


@dataclass
class Context:
    """What NeMo evaluations need from the server."""

    catalog: Catalog
    services: Services
    targets: Targets
    access: datasets.DatasetAccess
    entities: Entities
    output_root: Path
    live_max_rows: int = 1000


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def redacted(value: Any) -> Any:
    """``value`` with every ``api_key`` hidden (jobs and targets are shown to any caller)."""
    if isinstance(value, dict):
        return {k: (REDACTED if k == "api_key" and v else redacted(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return value


class NemoJobs:
    """NeMo jobs as a kind of job of the shared runner."""

    kind = KIND

    def __init__(self, context: Context) -> None:
        self.context = context

    async def run(self, runner: JobRunner, name: str, job: Job) -> None:
        stored = json.loads(job.request)
        body = stored["job"]
        found = plan.build(body["config"], body["target"], self.context.catalog)
        rows = await asyncio.to_thread(evaluation.load_rows, found, self.context.access)
        numbered = evaluation.numbered(rows)
        counts = [len(r) for r in rows]
        if stored.get("task_rows") not in (None, counts):
            raise InvalidArgument(
                "config.tasks",
                f"the datasets changed while the job was stopped ({stored['task_rows']} rows "
                f"before, {counts} now)",
            )
        if stored.get("task_rows") is None:
            stored["task_rows"] = counts
            await runner.store.update(
                name, request=json.dumps(stored).encode(), rows_total=len(numbered)
            )
        done = await runner.store.done_rows(name)
        run = evaluation.Evaluation(
            found, rows, self.context.targets, self.context.services, cache_scope=body["id"]
        )

        async def score(number: int) -> tuple[bool, str]:
            record = await run.score(numbered[number])
            return evaluation.failed(record), json.dumps(record, ensure_ascii=False)

        pending = (row.number for row in numbered if row.number not in done)
        await runner.score_rows(name, pending, score, found.parallelism)
        lines = await runner.store.results(name)
        result = await asyncio.to_thread(self._finish, found, body, job, lines)
        await self.context.entities.put("result", result)
        await runner.end(name, SUCCEEDED, response=json.dumps(result).encode())

    def _finish(
        self, found: plan.Plan, body: Mapping[str, Any], job: Job, lines: list[str]
    ) -> dict[str, Any]:
        records = [json.loads(line) for line in lines]
        scores = evaluation.results(found, records)
        stamp = now()
        result = {
            "id": new_id("evaluation_result"),
            "job": body["id"],
            "namespace": body.get("namespace") or DEFAULT_NAMESPACE,
            "name": "",
            "files_url": _files_url(job.output_dir),
            "created_at": stamp,
            "updated_at": stamp,
            "custom_fields": {},
            **scores,
        }
        result["name"] = result["id"]
        outputs.write_files(
            job.output_dir,
            {RESULTS_FILE: json.dumps(result, indent=2), ROWS_FILE: "\n".join(lines) + "\n"},
            self.context.output_root,
            "output_files_url",
        )
        return result


class NemoService:
    """Configs, targets, results, jobs and live evaluations."""

    def __init__(self, context: Context, runner: JobRunner) -> None:
        self.context = context
        self.entities = context.entities
        self.runner = runner

    # Configs, targets and results.

    async def create_entity(self, kind: str, body: Any) -> dict[str, Any]:
        checked = _object(body, "")
        if kind == "config":
            _named(checked)
            await asyncio.to_thread(plan.build, checked, None, self.context.catalog)
        elif kind == "target":
            _named(checked)
            plan.target_of(checked)
        created: dict[str, Any] = redacted(await self.entities.create(kind, checked))
        return created

    async def update_entity(
        self, kind: str, namespace: str, name: str, body: Any
    ) -> dict[str, Any]:
        changes = _object(body, "")
        current = await self.entities.get(kind, namespace, name)
        merged = {**current, **changes}
        if kind == "config":
            await asyncio.to_thread(plan.build, merged, None, self.context.catalog)
        elif kind == "target":
            plan.target_of(merged)
        updated: dict[str, Any] = redacted(
            await self.entities.update(kind, namespace, name, changes)
        )
        return updated

    # Jobs.

    async def create_job(self, body: Any) -> dict[str, Any]:
        job = await self._resolved(body)
        found = await asyncio.to_thread(
            plan.build, job["config"], job["target"], self.context.catalog
        )
        await asyncio.to_thread(_check_sources, found, self.context.access)
        job_id = new_id("eval")
        job["id"] = job_id
        job["namespace"] = job.get("namespace") or DEFAULT_NAMESPACE
        job["created_at"] = job["updated_at"] = now()
        for key in ("status", "status_details", "result"):
            job.pop(key, None)
        prefix = job.get("output_files_url") or str(self.context.output_root)
        if job.get("output_files_url"):
            prefix = await asyncio.to_thread(
                outputs.check_destination, prefix, "output_files_url", self.context.output_root
            )
        stored = {"job": job, "task_rows": None}
        created = await self.runner.create(
            PREFIX + job_id,
            json.dumps(stored).encode(),
            outputs.output_directory(prefix, job_id),
            KIND,
        )
        return self.job_json(created)

    async def _resolved(self, body: Any) -> dict[str, Any]:
        job = dict(_object(body, ""))
        for key, kind in (("config", "config"), ("target", "target")):
            value = job.get(key)
            if value is None:
                raise InvalidArgument(key, f"the job's {key} is required")
            if isinstance(value, str):
                namespace, _, name = value.rpartition("/")
                if not name:
                    raise InvalidArgument(key, "a reference is 'namespace/name'")
                try:
                    job[key] = await self.entities.get(kind, namespace or DEFAULT_NAMESPACE, name)
                except NotFound:
                    raise InvalidArgument(key, f"no {kind} named {value!r}") from None
        return job

    async def job(self, job_id: str) -> Job:
        job = await self.runner.store.get(PREFIX + job_id)
        if job is None:
            raise NotFound(f"evaluation job '{job_id}' not found")
        return job

    def job_json(self, job: Job) -> dict[str, Any]:
        stored = json.loads(job.request)
        body = dict(stored["job"])
        body["status"] = STATUS.get(job.state, "unknown")
        body["status_details"] = self.status_details(job)
        body["updated_at"] = _iso(job.update_time)
        if job.response:
            body["result"] = json.loads(job.response)["id"]
        shown: dict[str, Any] = redacted(body)
        return shown

    def status_details(self, job: Job) -> dict[str, Any]:
        stored = json.loads(job.request)
        total = job.rows_total
        progress = (
            100.0
            if job.state == SUCCEEDED
            else (round(100.0 * job.rows_done / total, 2) if total else 0.0)
        )
        message = {
            QUEUED: "The job is waiting to start.",
            RUNNING: f"{job.rows_done} of {total or '?'} samples processed.",
            CANCELLING: "The job is being cancelled.",
            CANCELLED: "The job was cancelled.",
            SUCCEEDED: "The job completed.",
        }.get(job.state, "")
        if job.error:
            message = status_pb2.Status.FromString(job.error).message
        if job.rows_failed and job.state == SUCCEEDED:
            message += f" {job.rows_failed} sample(s) had errors; see the results' rows."
        tasks = list(stored["job"]["config"].get("tasks") or {})
        counts = stored.get("task_rows")
        state = {
            QUEUED: "pending",
            RUNNING: "running",
            SUCCEEDED: "completed",
            FAILED: "failed",
            CANCELLING: "failed",
            CANCELLED: "failed",
        }[job.state]
        task_status = dict.fromkeys(tasks, state)
        if job.state == RUNNING and counts is None:
            task_status = dict.fromkeys(tasks, "pending")
        return {
            "message": message.strip(),
            "progress": progress,
            "samples_processed": job.rows_done,
            "task_status": task_status,
        }

    async def list_jobs(self, filters: Mapping[str, str]) -> list[dict[str, Any]]:
        jobs = await self.runner.store.list(PREFIX, 0, 100_000)
        found = []
        for job in jobs:
            body = self.job_json(job)
            if "namespace" in filters and body.get("namespace") != filters["namespace"]:
                continue
            if "status" in filters and body["status"] != filters["status"]:
                continue
            found.append(body)
        return found

    async def results(self, job_id: str) -> dict[str, Any]:
        job = await self.job(job_id)
        if job.state != SUCCEEDED or not job.response:
            raise FailedPrecondition(
                f"evaluation job '{job_id}' is {STATUS.get(job.state)}: results exist once it "
                "completes"
            )
        found: dict[str, Any] = json.loads(job.response)
        return found

    async def download(self, job_id: str) -> bytes:
        job = await self.job(job_id)
        result = await self.results(job_id)
        lines = await self.runner.store.results(job.name)

        def pack() -> bytes:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(RESULTS_FILE, json.dumps(result, indent=2))
                archive.writestr(ROWS_FILE, "\n".join(lines) + "\n")
            return buffer.getvalue()

        return await asyncio.to_thread(pack)

    async def logs(self, job_id: str) -> dict[str, Any]:
        job = await self.job(job_id)
        events = [{"timestamp": _iso(job.create_time), "message": "job created"}]
        if job.rows_total:
            events.append(
                {
                    "timestamp": _iso(job.update_time),
                    "message": f"{job.rows_done} of {job.rows_total} samples processed, "
                    f"{job.rows_failed} with errors",
                }
            )
        if job.state in FINISHED:
            details = self.status_details(job)
            events.append(
                {
                    "timestamp": _iso(job.update_time),
                    "message": f"job {STATUS[job.state]}: {details['message']}",
                }
            )
        return {"object": "list", "data": events, "next_page": None}

    async def cancel(self, job_id: str) -> dict[str, Any]:
        job = await self.job(job_id)
        await self.runner.cancel(job.name)
        return self.job_json(await self.job(job_id))

    async def delete(self, job_id: str) -> None:
        job = await self.job(job_id)
        if job.state not in FINISHED:
            await self.runner.cancel(job.name)
            await self.runner.wait(job.name, 10.0)
        await self.runner.store.delete(job.name)

    # Live.

    async def live(self, body: Any) -> dict[str, Any]:
        job = await self._resolved(body)
        found = await asyncio.to_thread(
            plan.build, job["config"], job["target"], self.context.catalog
        )
        rows = await asyncio.to_thread(evaluation.load_rows, found, self.context.access)
        numbered = evaluation.numbered(rows)
        if len(numbered) > self.context.live_max_rows:
            raise ResourceExhausted(
                f"a live evaluation takes at most {self.context.live_max_rows} rows "
                f"({len(numbered)} given): run a job for more"
            )
        run = evaluation.Evaluation(found, rows, self.context.targets, self.context.services)
        started = time.monotonic()
        limit = asyncio.Semaphore(found.parallelism or 16)

        async def one(row: evaluation.Row) -> dict[str, Any]:
            async with limit:
                return await run.score(row)

        records = await asyncio.gather(*(one(row) for row in numbered))
        scores = await asyncio.to_thread(evaluation.results, found, records)
        errors = sum(1 for r in records if r["errors"])
        stamp = now()
        result = {
            "id": new_id("evaluation_result"),
            "job": "live",
            "namespace": job.get("namespace") or DEFAULT_NAMESPACE,
            "created_at": stamp,
            "updated_at": stamp,
            **scores,
        }
        first = next((r["errors"] for r in records if r["errors"]), None)
        return {
            "status": "completed",
            "status_details": {
                "message": f"{len(records)} samples processed, {errors} with errors",
                "progress": 100.0,
                "samples_processed": len(records),
                "task_status": dict.fromkeys((t.name for t in found.tasks), "completed"),
            },
            "result": result,
            "logs": {
                "seconds": round(time.monotonic() - started, 3),
                "first_error": first,
            },
        }


def _files_url(directory: str) -> str:
    """Where a job's output files are, as a URL (``gs://`` ones as they are)."""
    if "://" in directory:
        return directory
    return Path(directory).resolve().as_uri()


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidArgument(where, "the body must be a JSON object")
    return value


def _named(body: Mapping[str, Any]) -> None:
    for key in ("namespace", "name"):
        value = body.get(key)
        if value is not None and (not isinstance(value, str) or "/" in value):
            raise InvalidArgument(key, "must be a string without '/'")


def _check_sources(found: plan.Plan, access: datasets.DatasetAccess) -> None:
    for task in found.tasks:
        if task.dataset.files_url is not None:
            datasets.check_url(
                task.dataset.files_url,
                access,
                field=task.dataset.field,
                hf_endpoint=task.dataset.hf_endpoint,
            )
