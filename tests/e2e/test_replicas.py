"""Two ``evald serve`` replicas on one PostgreSQL share a 10,000-row dataset job: the replica
running it is killed with SIGKILL once rows have landed, the other takes the job over when the
lease lapses, and finishes it from the rows stored in the database. Every row is stored and
written to results.jsonl exactly once, with the scores of a run in one local SQLite process.

The replicas have data dirs of their own (nothing is shared through local files but the
dataset and the output directory, as on a shared volume) and, where ``unshare`` may make UTS
namespaces (root), host names of their own: the survivor cannot see that the other's process is
gone and must wait out the lease, as on two machines.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.support import ServeProcess, operation, progress, stub

ROWS = 10_000
LEASE_SECONDS = 2


def own_host(name: str) -> list[str]:
    """A prefix running a command with host name ``name`` (its own UTS namespace), or none
    where namespaces cannot be made here."""
    prefix = ["unshare", "--uts", "sh", "-c", f'hostname {name} && exec "$@"', "sh"]
    try:
        done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return []
    return prefix if done.returncode == 0 else []


def replica(data_dir: Path, shared: Path, *extra: str, host: str = "") -> ServeProcess:
    """A server on ``data_dir``, its datasets and outputs under ``shared``, with host name
    ``host`` where namespaces can be made; not yet ready (replicas load side by side)."""
    roots = ["--dataset-root", str(shared), "--output-root", str(shared)]
    return ServeProcess(
        ["--data-dir", str(data_dir), *roots, *extra], own_host(host) if host else ()
    )


def job_request(data: Path, out: Path) -> Any:
    request = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})
    request.metrics.add(bleu_spec={})
    request.output_config.gcs_destination.output_uri_prefix = str(out)
    return request


def outputs(done: Any) -> tuple[list[str], dict[str, Any]]:
    """A finished job's results.jsonl lines and aggregation.json."""
    assert done.done
    assert not done.HasField("error"), done.error
    state = progress(done)
    assert (state.state, state.rows_total, state.rows_done) == ("SUCCEEDED", ROWS, ROWS)
    response = m.EvaluateDatasetResponse()
    done.response.Unpack(response)
    folder = Path(response.output_info.gcs_output_directory)
    lines = (folder / "results.jsonl").read_text().splitlines()
    return lines, json.loads((folder / "aggregation.json").read_text())


def test_a_replica_takes_over_the_job_of_a_killed_one(tmp_path: Path, postgres_url: str) -> None:
    import psycopg

    data = tmp_path / "rows.jsonl"
    rows = (
        {"prompt": f"q{i}", "response": f"the answer is {i % 10}", "reference": "the answer is 0"}
        for i in range(ROWS)
    )
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))

    shared = ("--database-url", postgres_url, "--job-lease-seconds", str(LEASE_SECONDS))
    # All three start side by side: the reference (one process on its local SQLite files) and
    # two replicas on the database.
    local = replica(tmp_path / "local", tmp_path)
    first = replica(tmp_path / "a", tmp_path, *shared, host="replica-a")
    second = replica(tmp_path / "b", tmp_path, *shared, host="replica-b")
    try:
        local.ready()
        started = time.monotonic()
        with grpc.insecure_channel(local.address) as channel:
            name = stub(channel).EvaluateDataset(job_request(data, tmp_path / "local-out")).name
            expected_lines, expected_aggregation = outputs(operation(channel, name, wait=60))
        local_seconds = time.monotonic() - started
        local.stop()
        first.ready()
        second.ready()
        started = time.monotonic()
        with (
            grpc.insecure_channel(first.address) as to_first,
            grpc.insecure_channel(second.address) as to_second,
        ):
            name = stub(to_first).EvaluateDataset(job_request(data, tmp_path / "out")).name
            deadline = time.monotonic() + 20
            while True:  # the job is seen by both replicas; kill its runner once rows landed
                before = progress(operation(to_second, name)).rows_done
                if before >= 1000:
                    break
                assert time.monotonic() < deadline, "the job made no progress"
                time.sleep(0.01)
            first.kill()
            assert before < ROWS, "the job finished before the kill; make it slower"
            lines, aggregation = outputs(operation(to_second, name, wait=60))
        replicas_seconds = time.monotonic() - started
    finally:
        for server in (local, first, second):
            server.stop()
    print(
        f"\n{ROWS} rows, submitted to done: one SQLite process {local_seconds:.1f} s; "
        f"two PostgreSQL replicas, the runner killed at {before}: {replicas_seconds:.1f} s"
    )

    assert any("resuming dataset job" in line for line in second.log), "no takeover logged"
    with psycopg.connect(postgres_url) as db:
        stored = [row for (row,) in db.execute("SELECT row FROM job_rows WHERE job = %s", (name,))]
        owner = db.execute("SELECT owner FROM jobs WHERE name = %s", (name,)).fetchone()
    assert sorted(stored) == list(range(ROWS))  # each row stored exactly once
    assert owner is not None
    assert str(second.process.pid) in owner[0]  # finished by the survivor
    if own_host("probe"):  # on "two machines": taken over when the lease lapsed, not by PID
        assert owner[0].startswith("replica-b:")
    assert [json.loads(line)["row"] for line in lines] == list(range(ROWS))
    assert lines == expected_lines  # the same scores, row by row
    assert aggregation == expected_aggregation
