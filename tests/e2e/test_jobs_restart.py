"""A 10,000-row job survives SIGKILL of its ``evald serve`` process and a restart: it resumes
from the stored rows (none scored twice, none lost) and ends with exactly 10,000 results.

The same holds when the restarted server has the same host name and PID as the killed one, as
PID 1 of a container does: each server runs as PID 1 of its own PID namespace (``unshare``)
with a fixed host name.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import empty_pb2

from tests.support import ServeProcess, operation, progress, stub

ROWS = 10_000
HOSTNAME = "evald-0"
PID_1 = (
    *("unshare", "--uts", "--pid", "--fork", "--mount-proc"),
    *("sh", "-c", f'hostname {HOSTNAME} && exec "$@"', "sh"),
)
"""Runs a command as PID 1 of a new PID namespace, with host name ``evald-0``."""


def serve(data_dir: Path, wrap: Sequence[str] = ()) -> ServeProcess:
    """A server on ``data_dir``; the tests' datasets and outputs sit beside it."""
    root = str(data_dir.parent)
    return ServeProcess(
        [
            *("--data-dir", str(data_dir), "--dataset-root", root, "--output-root", root),
            *("--log-level", "INFO"),
        ],
        wrap,
    ).ready(30)


def namespace_pid(server: ServeProcess) -> int:
    """The server's PID in its own PID namespace."""
    status = Path(f"/proc/{server.server_pid()}/status").read_text()
    (line,) = [line for line in status.splitlines() if line.startswith("NSpid:")]
    return int(line.split()[-1])


def test_job_survives_kill_and_restart(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    with data.open("w") as handle:
        for i in range(ROWS):
            row = {
                "prompt": f"q{i}",
                "response": f"the answer is {i % 10}",
                "reference": "the answer is 0",
            }
            handle.write(json.dumps(row) + "\n")
    request = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})
    request.metrics.add(bleu_spec={})
    request.output_config.gcs_destination.output_uri_prefix = str(tmp_path / "out")

    first = serve(tmp_path / "data")
    try:
        with grpc.insecure_channel(first.address) as channel:
            name = stub(channel).EvaluateDataset(request).name
            deadline = time.monotonic() + 20
            while True:  # kill once some rows, but not all, are stored
                before = progress(operation(channel, name)).rows_done
                if before >= 1000:
                    break
                assert time.monotonic() < deadline, "the job made no progress"
                time.sleep(0.01)
        first.kill()
    finally:
        first.stop()
    assert before < ROWS, "the job finished before the kill; make it slower"

    second = serve(tmp_path / "data")
    try:
        with grpc.insecure_channel(second.address) as channel:
            resumed = progress(operation(channel, name))
            assert resumed.rows_done >= before  # nothing stored was lost
            done = operation(channel, name, wait=60)
            assert done.done, progress(done)
            assert not done.HasField("error"), done.error
            state = progress(done)
            assert (state.state, state.rows_total, state.rows_done) == ("SUCCEEDED", ROWS, ROWS)
            response = m.EvaluateDatasetResponse()
            done.response.Unpack(response)
    finally:
        second.stop()
    results = Path(response.output_info.gcs_output_directory) / "results.jsonl"
    indices = [json.loads(line)["row"] for line in results.read_text().splitlines()]
    assert indices == list(range(ROWS))  # exactly one line per row, in order
    aggregation = json.loads(results.with_name("aggregation.json").read_text())
    assert aggregation["metrics"][0]["count"] == ROWS
    assert aggregation["metrics"][0]["mean"] == 0.1  # every tenth response matches exactly


@pytest.fixture(scope="module")
def pid_namespaces() -> None:
    """Skips unless this machine lets ``unshare`` make PID and UTS namespaces (root, or a
    container allowed to)."""
    try:
        done = subprocess.run([*PID_1, "true"], capture_output=True, text=True, timeout=30)
    except FileNotFoundError as exc:
        pytest.skip(f"unshare or hostname is not installed: {exc}")
    if done.returncode:
        pytest.skip(f"unshare may not make PID and UTS namespaces here: {done.stderr.strip()}")


def exact_match_job(data: Path, out: Path) -> Any:
    request = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})
    request.output_config.gcs_destination.output_uri_prefix = str(out)
    return request


def call(channel: grpc.Channel, method: str, request: Any, reply: Any = empty_pb2.Empty) -> Any:
    return channel.unary_unary(
        f"/google.longrunning.Operations/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=reply.FromString,
    )(request, timeout=10)


def outputs(operation: Any) -> tuple[Any, str, str]:
    """The aggregation in a finished job's response, its results.jsonl and aggregation.json."""
    response = m.EvaluateDatasetResponse()
    operation.response.Unpack(response)
    directory = Path(response.output_info.gcs_output_directory)
    return (
        response.aggregation_output,
        (directory / "results.jsonl").read_text(),
        (directory / "aggregation.json").read_text(),
    )


def test_pid_1_restart_resumes_and_cancels_jobs(tmp_path: Path, pid_namespaces: None) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(
            json.dumps({"response": f"the answer is {i % 10}", "reference": "the answer is 0"})
            + "\n"
            for i in range(ROWS)
        )
    )
    first = serve(tmp_path / "data", PID_1)
    try:
        assert namespace_pid(first) == 1
        with grpc.insecure_channel(first.address) as channel:
            kept, cancelled = (
                stub(channel).EvaluateDataset(exact_match_job(data, tmp_path / out)).name
                for out in ("kept", "cancelled")
            )
            deadline = time.monotonic() + 20
            while True:  # kill once both jobs have stored some rows, but not all
                before = [
                    progress(operation(channel, name)).rows_done for name in (kept, cancelled)
                ]
                if min(before) >= 500:
                    break
                assert time.monotonic() < deadline, f"the jobs made too little progress: {before}"
                time.sleep(0.01)
        first.kill()
    finally:
        first.stop()
    assert max(before) < ROWS, "a job finished before the kill; make it slower"

    second = serve(tmp_path / "data", PID_1)  # PID 1 again, the same host name
    try:
        assert namespace_pid(second) == 1
        with grpc.insecure_channel(second.address) as channel:
            call(channel, "CancelOperation", lro.CancelOperationRequest(name=cancelled))
            stopped = operation(channel, cancelled, wait=30)
            assert stopped.done, progress(stopped)
            assert stopped.error.code == grpc.StatusCode.CANCELLED.value[0]
            assert progress(stopped).state == "CANCELLED"
            call(channel, "DeleteOperation", lro.DeleteOperationRequest(name=cancelled))
            with pytest.raises(grpc.RpcError) as gone:
                operation(channel, cancelled)
            assert gone.value.code() == grpc.StatusCode.NOT_FOUND

            done = operation(channel, kept, wait=60)
            assert done.done, progress(done)
            assert not done.HasField("error"), done.error
            state = progress(done)
            assert (state.state, state.rows_total, state.rows_done) == ("SUCCEEDED", ROWS, ROWS)
            # The same job run without interruption gives the same results.
            again = stub(channel).EvaluateDataset(exact_match_job(data, tmp_path / "again")).name
            uninterrupted = operation(channel, again, wait=60)
            assert uninterrupted.done
            assert not uninterrupted.HasField("error")
    finally:
        second.stop()
    assert outputs(done) == outputs(uninterrupted)
    results = outputs(done)[1].splitlines()
    assert [json.loads(line)["row"] for line in results] == list(range(ROWS))
