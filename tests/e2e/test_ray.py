"""Dataset jobs on a Ray cluster (``--engine ray``), one local cluster for the module: scores
identical to local scoring, a worker killed mid-batch, a driver killed and restarted, and the
cluster-wide judge limit.

Skipped when Ray is not installed (``pip install 'evald[ray]'``), except in CI, which must run
them.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.app import App
from evald.cli.main import main
from evald.config import Settings
from evald.jobs.store import SUCCEEDED, Job
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.fakes.judge_config import API_KEY, configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import ServeProcess, operation, progress, stub

try:
    import ray
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("ray is not installed (pip install 'evald[ray]')", allow_module_level=True)

PROBE = "tests.e2e.ray_probe_metric"
RAY_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_DISABLE_DOCKER_CPU_WARNING": "1",
    "RAY_DEDUP_LOGS": "0",
    # The workers read the fake judge's key from their environment, as a real node would.
    "FAKE_JUDGE_KEY": API_KEY,
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A 2-CPU Ray cluster in this process; its address (workers import this very tree)."""
    saved = dict(os.environ)
    os.environ.update(RAY_ENV)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and Path(p).is_dir())
    context: Any = ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=100 * 1024 * 1024,
    )
    try:
        yield str(context.address_info["gcs_address"])
    finally:
        ray.shutdown()
        os.environ.clear()
        os.environ.update(saved)


def write_rows(path: Path, count: int, special: dict[int, str] | None = None) -> Path:
    with path.open("w") as handle:
        for i in range(count):
            response = (special or {}).get(i, f"the answer is {i % 10}")
            row = {"prompt": f"q{i}", "response": response, "reference": "the answer is 0"}
            handle.write(json.dumps(row) + "\n")
    return path


def dataset_request(data: Path, out: Path) -> Any:
    request = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.output_config.gcs_destination.output_uri_prefix = str(out)
    return request


def probe(request: Any, **parameters: Any) -> None:
    spec = request.metrics.add().predefined_metric_spec
    spec.metric_spec_name = "test/ray_probe"
    spec.metric_spec_parameters.update(parameters)


def settings(tmp_path: Path, name: str, **values: Any) -> Settings:
    return Settings(
        data_dir=tmp_path / name,
        dataset_root=tmp_path,
        output_root=tmp_path,
        metric_modules=PROBE,
        **values,
    )


def run_job(config: Settings, request: Any, batch_rows: int = 0) -> tuple[Job, App]:
    async def scenario() -> tuple[Job, App]:
        app = App.build(config)
        engine: Any = app.jobs.runner.engine
        if batch_rows:
            engine.batch_rows = batch_rows
        await app.start()
        try:
            job = await app.jobs.runner.submit(request)
            return await app.jobs.runner.wait(job.name, 120), app
        finally:
            await app.aclose()

    return asyncio.run(scenario())


def indices(job: Job) -> list[int]:
    lines = (Path(job.output_dir) / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["row"] for line in lines]


def test_ten_thousand_rows_score_as_locally(tmp_path: Path, cluster: str) -> None:
    data = write_rows(tmp_path / "rows.jsonl", 10_000)
    outputs = []
    for engine in ("local", "ray"):
        request = dataset_request(data, tmp_path / f"out-{engine}")
        request.metrics.add(exact_match_spec={})
        request.metrics.add(bleu_spec={})
        config = settings(tmp_path, engine, engine=engine, ray_address=cluster)
        job, _ = run_job(config, request)
        assert (job.state, job.rows_done) == (SUCCEEDED, 10_000)
        directory = Path(job.output_dir)
        outputs.append(
            [(directory / name).read_bytes() for name in ("results.jsonl", "aggregation.json")]
        )
    local, on_ray = outputs
    assert on_ray[0] == local[0]  # byte-identical results.jsonl
    assert on_ray[1] == local[1]
    assert json.loads(local[1])["metrics"][0]["mean"] == 0.1  # one response in ten matches


def test_a_worker_killed_mid_batch_is_retried_without_duplicates(
    tmp_path: Path, cluster: str
) -> None:
    data = write_rows(tmp_path / "rows.jsonl", 600, {300: "crash"})
    marker = tmp_path / "crashed"
    request = dataset_request(data, tmp_path / "out")
    probe(request, crash_marker=str(marker))
    config = settings(tmp_path, "data", engine="ray", ray_address=cluster)
    job, app = run_job(config, request)
    assert marker.exists(), "no worker was killed"
    assert os.getpid() != int(marker.read_text())  # a worker's process, not this one
    assert (job.state, job.rows_done, job.rows_failed) == (SUCCEEDED, 600, 0)
    assert indices(job) == list(range(600))  # every row once: the retried batch added none

    # A batch that runs again after its rows were stored (a retry, another driver) changes
    # nothing: the first result of each row is kept.
    async def again() -> list[str]:
        runner = app.jobs.runner
        engine: Any = runner.engine
        stored_before = await runner.store.results(job.name)
        scorer: Any = FlipScores(request.metrics)

        async def store(batch: list[tuple[int, bool, str]]) -> None:
            await runner.store.add_rows(job.name, batch)

        await engine.score(scorer, [{}] * 600, range(0, 250), store)
        assert await runner.store.results(job.name) == stored_before
        return stored_before

    assert len(asyncio.run(again())) == 600


class FlipScores:
    """A scorer whose results differ from any real one (picklable, runs on the workers)."""

    def __init__(self, metrics: Any) -> None:
        self.count = len(metrics)

    async def __call__(self, evaluate: Any, index: int, row: Any) -> tuple[bool, str]:
        return True, json.dumps({"row": index, "results": [{"score": -1}] * self.count})


def serve(data_dir: Path, address: str) -> ServeProcess:
    """``evald serve --engine ray`` on ``data_dir``, its datasets and outputs beside it."""
    root = str(data_dir.parent)
    return ServeProcess(
        [
            *("--data-dir", str(data_dir), "--dataset-root", root, "--output-root", root),
            *("--engine", "ray", "--ray-address", address, "--metric-modules", PROBE),
        ]
    ).ready()


def test_driver_killed_and_restarted_stores_every_row_once(tmp_path: Path, cluster: str) -> None:
    rows = 3000
    data = write_rows(tmp_path / "rows.jsonl", rows)
    request = dataset_request(data, tmp_path / "out")
    probe(request, sleep_ms=2)  # ~3 s of scoring on 2 workers: time to kill it mid-way
    first = serve(tmp_path / "data", cluster)
    try:
        with grpc.insecure_channel(first.address) as channel:
            name = stub(channel).EvaluateDataset(request).name
            deadline = time.monotonic() + 60
            while True:
                before = progress(operation(channel, name)).rows_done
                if before >= 500:
                    break
                assert time.monotonic() < deadline, "the job made no progress"
                time.sleep(0.02)
        first.kill()  # SIGKILL: its batches in flight are lost, never stored
    finally:
        first.stop()
    assert before < rows, "the job finished before the kill; make it slower"

    second = serve(tmp_path / "data", cluster)
    try:
        with grpc.insecure_channel(second.address) as channel:
            assert progress(operation(channel, name)).rows_done >= before  # nothing stored was lost
            done = operation(channel, name, wait=60)
            assert done.done, progress(done)
            assert not done.HasField("error"), done.error
            state = progress(done)
            assert (state.state, state.rows_done) == ("SUCCEEDED", rows)
            response = m.EvaluateDatasetResponse()
            done.response.Unpack(response)
    finally:
        second.stop()
    results = Path(response.output_info.gcs_output_directory) / "results.jsonl"
    lines = results.read_text().splitlines()
    assert [json.loads(line)["row"] for line in lines] == list(range(rows))
    aggregation = json.loads(results.with_name("aggregation.json").read_text())
    assert (aggregation["metrics"][0]["count"], aggregation["metrics"][0]["mean"]) == (rows, 0.1)


def test_judge_concurrency_holds_across_workers(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit, count = 2, 40

    def slow(prompt: str) -> str:
        time.sleep(0.05)
        return json.dumps({"score": 4, "explanation": "slow"})

    with running(FakeJudge(default=slow)) as judge:
        judge_file = configure(monkeypatch, tmp_path, judge.url, max_concurrency=limit)
        data = write_rows(tmp_path / "rows.jsonl", count)
        request = dataset_request(data, tmp_path / "out")
        request.metrics.add().pointwise_metric_spec.metric_prompt_template = "Rate: {response}"
        config = settings(
            tmp_path, "data", engine="ray", ray_address=cluster, judge_config=judge_file
        )
        job, _ = run_job(config, request, batch_rows=4)  # 10 batches over both workers
        assert (job.state, job.rows_done, job.rows_failed) == (SUCCEEDED, count, 0)
        assert len(judge.calls) == count
        # Each worker alone may have ``limit`` calls in flight: two would reach 2 * limit.
        assert judge.peak == limit
    actor = ray.get_actor("evald-limiter", namespace="evald")
    peak: Any = ray.get(actor.peak.remote("judge:fake"))
    assert peak == limit


def test_evaluate_engine_ray_writes_the_local_results(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in os.environ if name.startswith("EVALD_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    data = write_rows(tmp_path / "rows.jsonl", 600)
    flags = ["--metric", "exact_match", "--metric", "rouge:rougeL", "--data", str(data)]
    found = []
    for engine in ("local", "ray"):
        out = tmp_path / engine
        args = ["evaluate", *flags, "--quiet", "--output", str(out), "--max-error-rate", "0"]
        assert main([*args, "--engine", engine, "--ray-address", cluster]) == 0
        found.append((out / "results.jsonl").read_bytes())
    assert found[1] == found[0]
    assert len(found[0].splitlines()) == 600
