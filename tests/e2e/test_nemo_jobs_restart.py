"""A NeMo job survives SIGKILL of its ``evald serve`` process: after a restart on the same data
dir it resumes, scores every row exactly once, and calls the model again for no row whose
output it already had (the scripted endpoint counts the calls)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nemo_microservices import NeMoMicroservices

from tests.fakes.model_server import FakeModel, ModelRequest, Reply, running_in_thread
from tests.support import ServeProcess

ROWS = 60


def serve(data: Path) -> ServeProcess:
    """A server with HTTP, its state and datasets in ``data``."""
    return ServeProcess(
        [
            *("--http-port", "0", "--data-dir", str(data / "state")),
            *("--dataset-root", str(data), "--output-root", str(data), "--log-level", "INFO"),
        ]
    ).ready(30)


def answer(request: ModelRequest) -> Reply:
    return Reply(text=f"answer to {request.prompt}")


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with running_in_thread(FakeModel(reply=answer, delay=0.05)) as fake:
        yield fake


def body(model_url: str) -> dict[str, Any]:
    return {
        "target": {"type": "model",
                   "model": {"api_endpoint": {"url": f"{model_url}/v1/completions",
                                              "model_id": "m"}}},
        "config": {"type": "custom", "params": {"parallelism": 4}, "tasks": {"qa": {
            "type": "completion",
            "params": {"template": "Q{{ n }}"},
            "dataset": {"files_url": "rows.json"},
            "metrics": {"check": {"type": "string-check", "params": {
                "check": ["{{sample.output_text}}", "equals", "answer to Q{{ n }}"]}}},
        }}},
    }  # fmt: skip


def test_killed_job_resumes_without_calling_the_model_again(
    tmp_path: Path, model: FakeModel
) -> None:
    (tmp_path / "rows.json").write_text(json.dumps([{"n": i} for i in range(ROWS)]))
    first = serve(tmp_path)
    try:
        client = NeMoMicroservices(base_url=first.url, max_retries=0)
        job = client.evaluation.jobs.create(**body(model.url))
        assert job.id is not None
        deadline = time.monotonic() + 30
        while (client.evaluation.jobs.status(job.id).samples_processed or 0) < ROWS // 3:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        first.kill()
        first.stop()
    answered = {r.prompt for r in model.requests}
    assert len(answered) < ROWS  # killed mid-way
    calls_before = model.calls

    second = serve(tmp_path)
    try:
        client = NeMoMicroservices(base_url=second.url, max_retries=0)
        deadline = time.monotonic() + 60
        while (found := client.evaluation.jobs.retrieve(job.id)).status != "completed":
            assert found.status in ("pending", "running"), found.status_details
            assert time.monotonic() < deadline
            time.sleep(0.1)
        results = client.evaluation.jobs.results(job.id)
    finally:
        second.stop()
    metrics = results.tasks["qa"].metrics  # type: ignore[index]
    assert metrics is not None
    check = metrics["check"].scores["string-check"]  # type: ignore[index]
    assert check.stats is not None
    assert (check.stats.count, check.value) == (ROWS, 1.0)  # every row, once
    after = model.requests[calls_before:]
    prompts = [r.prompt for r in after]
    # No prompt the killed server had an answer for is asked again, unless its call was cut
    # off by the kill (the fake then saw the request but the server never got the answer).
    again = [p for p in prompts if p in answered]
    assert len(again) <= model.cancelled + 4
    assert {r.prompt for r in model.requests} == {f"Q{i}" for i in range(ROWS)}
