"""A runner's start resumes the jobs an earlier start of the same process (same host name and
PID, as PID 1 in a restarted container) left active, and leaves live runners' jobs alone."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path
from typing import Any

from evald import api
from evald.jobs.runner import JobRunner
from evald.jobs.store import (
    CANCELLED,
    CANCELLING,
    DB_FILE,
    RUNNING,
    SUCCEEDED,
    JobStore,
    new_owner,
)
from evald.orphans import process_start

JOB = "projects/p/locations/l/operations/"
ROWS = 20


def test_start_resumes_jobs_of_an_earlier_start_with_the_same_pid(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(json.dumps({"response": "a", "reference": "a"}) + "\n" for _ in range(ROWS))
    )
    request = api.messages.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})
    boot, _, ticks = process_start(os.getpid()).partition("/")
    earlier = f"{socket.gethostname()}:{os.getpid()}:{boot}/{int(ticks) - 1}:0123456789abcdef"
    scored: list[int] = []
    one = {"metric": "exact_match", "score": 1.0, "explanation": None, "error": None}

    async def evaluate(instances: Any) -> Any:
        scored.append(1)
        response = api.messages.EvaluateInstancesResponse()
        response.metric_results.add(score=1.0)
        return response

    async def scenario() -> None:
        path = tmp_path / "data" / DB_FILE
        previous = JobStore(path, earlier)
        sibling = JobStore(path, new_owner())  # a live runner in this process
        for name, store, state in (
            ("resumed", previous, RUNNING),
            ("cancelling", previous, CANCELLING),
            ("sibling", sibling, RUNNING),
        ):
            await store.create(JOB + name, request.SerializeToString(), str(tmp_path / name))
            await store.update(JOB + name, state=state, rows_total=ROWS)
        stored = [(i, False, json.dumps({"row": i, "results": [one]})) for i in range(5)]
        await previous.add_rows(JOB + "resumed", stored)

        runner = JobRunner(tmp_path / "data", evaluate, dataset_root=tmp_path, output_root=tmp_path)
        assert runner.store.owner not in (earlier, sibling.owner)
        await runner.start()
        try:
            resumed = await runner.wait(JOB + "resumed", 10)
            assert (resumed.state, resumed.rows_done, resumed.owner) == (
                SUCCEEDED,
                ROWS,
                runner.store.owner,
            )
            assert len(scored) == ROWS - 5  # stored rows are not scored again
            assert (await runner.wait(JOB + "cancelling", 10)).state == CANCELLED
            untouched = await runner.get(JOB + "sibling")
            assert (untouched.state, untouched.owner) == (RUNNING, sibling.owner)
        finally:
            await runner.stop()

    asyncio.run(scenario())


def test_a_job_taken_over_stops_here_and_is_left_to_its_new_owner(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(json.dumps({"response": "a", "reference": "a"}) + "\n" for _ in range(5))
    )
    request = api.messages.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})

    async def evaluate(instances: Any) -> Any:
        await asyncio.sleep(3600)  # the job stays running until stopped

    async def scenario() -> None:
        runner = JobRunner(tmp_path / "data", evaluate, dataset_root=tmp_path, output_root=tmp_path)
        await runner.start()
        try:
            name = (await runner.submit(request)).name
            task = runner._tasks[name]
            # Another runner took it over (as after this one was paused past its lease).
            await runner.store.update(name, owner="elsewhere:1:x/1:00")
            await asyncio.wait_for(asyncio.shield(task), 10)
            job = await runner.get(name)
            assert (job.state, job.owner) == (RUNNING, "elsewhere:1:x/1:00")
        finally:
            await runner.stop()

    asyncio.run(scenario())
