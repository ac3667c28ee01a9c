"""The runs list follows a running job's progress without a reload, and stops polling once it
has finished."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evald.jobs.store import DB_FILE, RUNNING, SUCCEEDED, JobStore, new_owner
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.browser.support import UiServer, record

NAME = "projects/p/locations/l/operations/4242"


def sync(step: Coroutine[Any, Any, Any]) -> Any:
    """Run a job store call to completion (Playwright's own loop runs in this thread)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, step).result()


def test_live_progress(signed_in: Any, ui_server: UiServer) -> None:
    # A job "run by" this test process: its owner is alive, so the server leaves it alone
    # while the test moves it along through the same job store.
    store = JobStore(ui_server.root / "data" / DB_FILE, new_owner())
    job = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    job.dataset.gcs_source.uris.append("/datasets/live.jsonl")
    job.metrics.append(m.Metric(exact_match_spec={}))
    lines = [
        (i, False, json.dumps(record(i, f"q{i}", "a", "a", {"exact_match": 1.0}))) for i in range(4)
    ]
    sync(store.create(NAME, job.SerializeToString(), str(ui_server.root / "out")))
    sync(store.update(NAME, state=RUNNING, rows_total=4))
    page = signed_in
    page.goto("/ui/runs")
    row = page.get_by_test_id("run-job-4242")
    row.get_by_text("0 / 4").wait_for()
    assert row.get_by_text("live.jsonl").count() == 1
    sync(store.add_rows(NAME, lines[:3]))
    row.get_by_text("3 / 4").wait_for(timeout=6000)  # polled every 2 s
    sync(store.add_rows(NAME, lines[3:]))
    sync(store.update(NAME, state=SUCCEEDED))
    row.locator('[data-state="succeeded"]').wait_for(timeout=6000)
    row.get_by_text("4 / 4 rows").wait_for()
