"""A 10,000-row job survives SIGKILL of its ``evald serve`` process and a restart: it resumes
from the stored rows (none scored twice, none lost) and ends with exactly 10,000 results."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import duration_pb2

from tests.support import stub

EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"
ROWS = 10_000


class Serve:
    """``evald serve --port 0 --data-dir D`` in a subprocess; the port read from its log."""

    def __init__(self, data_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}
        self.process = subprocess.Popen(
            [EVALD, "serve", "--port", "0", "--data-dir", str(data_dir), "--log-level", "INFO"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,  # its own process group: a kill takes its helpers too
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 30
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            record = json.loads(line)
            if record.get("msg") == "serving":
                self.address = f"127.0.0.1:{record['port']}"
                break

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)

    def kill(self) -> None:
        """SIGKILL the server and every process it started (as an OOM kill or a container
        stop would): nothing gets to flush or clean up."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)
        with contextlib.suppress(ProcessLookupError):  # helpers left in its group, if any
            os.killpg(self.process.pid, signal.SIGKILL)
        self.reader.join(5)  # the pipe is at EOF once every holder is gone
        assert self.process.stderr is not None
        if not self.reader.is_alive():
            self.process.stderr.close()


def get(channel: grpc.Channel, name: str, wait: float = 0) -> Any:
    method = "WaitOperation" if wait else "GetOperation"
    request: Any = (
        lro.WaitOperationRequest(name=name, timeout=duration_pb2.Duration(seconds=int(wait)))
        if wait
        else lro.GetOperationRequest(name=name)
    )
    call = channel.unary_unary(
        f"/google.longrunning.Operations/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=lro.Operation.FromString,
    )
    return call(request, timeout=wait + 10)


def progress(operation: Any) -> Any:
    return evald_ops.EvaluateDatasetOperationMetadata.FromString(operation.metadata.value).progress


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

    first = Serve(tmp_path / "data")
    try:
        with grpc.insecure_channel(first.address) as channel:
            name = stub(channel).EvaluateDataset(request).name
            deadline = time.monotonic() + 20
            while True:  # kill once some rows, but not all, are stored
                before = progress(get(channel, name)).rows_done
                if before >= 1000:
                    break
                assert time.monotonic() < deadline, "the job made no progress"
                time.sleep(0.01)
        first.kill()
    finally:
        first.stop()
    assert before < ROWS, "the job finished before the kill; make it slower"

    second = Serve(tmp_path / "data")
    try:
        with grpc.insecure_channel(second.address) as channel:
            resumed = progress(get(channel, name))
            assert resumed.rows_done >= before  # nothing stored was lost
            done = get(channel, name, wait=60)
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
