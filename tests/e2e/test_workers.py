"""``evald serve --workers N``: N processes on one port, graceful stop, fast failure."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.support import MESSAGES, stub

EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"
m = MESSAGES["v1beta1"]
linux_only = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc/net/tcp")


class Supervisor:
    """``evald serve --workers ...`` in a subprocess, its stderr JSON lines collected."""

    def __init__(self, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}
        self.process = subprocess.Popen(
            [EVALD, "serve", "--port", "0", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._new: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            self._new.put(line)

    def wait_for(self, msg: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._new.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("msg") == msg:
                return dict(record)
        raise AssertionError(f"no {msg!r} line; stderr:\n{''.join(self.lines)}")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._reader.join(10)
            assert self.process.stderr is not None
            self.process.stderr.close()


def listeners(port: int) -> int:
    """How many sockets listen on ``port`` (one per SO_REUSEPORT process); gRPC may open them
    as IPv6 sockets mapping 127.0.0.1, so both tables count."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def exact_match(address: str, prediction: str, reference: str) -> float:
    # A fresh connection each time, so SO_REUSEPORT may hand it to either worker.
    with grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) as ch:
        request = m.EvaluateInstancesRequest(
            location="projects/p/locations/l",
            exact_match_input=m.ExactMatchInput(
                metric_spec=m.ExactMatchSpec(),
                instances=[m.ExactMatchInstance(prediction=prediction, reference=reference)],
            ),
        )
        response = stub(ch).EvaluateInstances(request, timeout=30)
        return float(response.exact_match_results.exact_match_metric_values[0].score)


@linux_only
def test_two_workers_share_the_port_and_stop_gracefully_on_sigterm() -> None:
    supervisor = Supervisor("--workers", "2")
    try:
        started = supervisor.wait_for("workers serving")
        port, pids = started["port"], started["pids"]
        assert len(pids) == 2
        assert supervisor.process.pid not in pids
        assert listeners(port) == 2
        if len(os.sched_getaffinity(0)) >= 2:  # each worker pinned to its own core
            cores = [os.sched_getaffinity(pid) for pid in pids]
            assert all(len(c) == 1 for c in cores)
            assert cores[0] != cores[1]
        address = f"127.0.0.1:{port}"
        for i in range(6):
            assert exact_match(address, f"a{i}", f"a{i}") == 1.0
            assert exact_match(address, f"a{i}", f"b{i}") == 0.0
    finally:
        status = supervisor.stop()
    assert status == 0
    stopped = [json.loads(line) for line in supervisor.lines if '"msg": "stopped"' in line]
    assert len(stopped) == 2  # each worker drained and said so
    assert supervisor.wait_for("workers stopped", timeout=30)["statuses"] == [0, 0]


@linux_only
def test_a_worker_that_dies_stops_the_others_and_the_supervisor_fails() -> None:
    supervisor = Supervisor("--workers", "2")
    try:
        pids = supervisor.wait_for("workers serving")["pids"]
        os.kill(pids[0], signal.SIGKILL)
        assert supervisor.process.wait(60) == 1
    finally:
        supervisor.stop()
    for pid in pids:  # both gone, none orphaned
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_busy_port_fails_fast_with_a_nonzero_status() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}
        done = subprocess.run(
            [EVALD, "serve", "--workers", "2", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    assert done.returncode == 1
    assert "worker 0 failed to start" in done.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--workers", "-1"], "workers must be 0"),
        (["--scoring-processes", "-2"], "scoring processes must be 0"),
        (["--workers", "two"], "invalid int value"),
    ],
)
def test_bad_settings_fail_before_starting_workers(flags: list[str], message: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVALD_")}
    done = subprocess.run(
        [EVALD, "serve", "--port", "0", *flags],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert done.returncode == 2
    assert message in done.stderr


def test_workers_setting_reads_the_environment() -> None:
    from evald.config import Settings
    from evald.workers import worker_count

    assert Settings.load(env={"EVALD_WORKERS": "3"}).workers == 3
    assert worker_count(Settings(workers=0)) == len(os.sched_getaffinity(0))
    assert Settings().workers == 1  # `make serve` stays one process
