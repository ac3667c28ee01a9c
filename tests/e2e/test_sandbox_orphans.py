"""Custom code never outlives the server that ran it: a server killed with SIGKILL takes its
sandboxes along, the wall-clock limit holds without the server, and the run roots a killed
server leaves behind are removed when a server starts."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.sandbox import runner
from google.protobuf import json_format

from tests.e2e.test_shutdown import Evald
from tests.support import MESSAGES, stub

SLEEPER = "import time\ndef evaluate(instance):\n    time.sleep(60)\n    return 1.0"


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid``."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


def sleeping_call(address: str) -> threading.Thread:
    body = {
        "location": "projects/p/locations/l",
        "metrics": [{"custom_code_execution_spec": {"evaluation_function": SLEEPER}}],
        "instance": {"response": {"text": "r"}},
    }
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())

    def call() -> None:
        # The server is killed under this call.
        with grpc.insecure_channel(address) as channel, contextlib.suppress(grpc.RpcError):
            stub(channel).EvaluateInstances(request, timeout=30)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def test_a_killed_server_takes_its_sandboxes_along(tmp_path: Path) -> None:
    server = Evald(
        "--enable-custom-code", "--custom-code-wall-seconds", "30", "--data-dir", str(tmp_path)
    )
    try:
        before = set(Path(tempfile.gettempdir()).glob(f"{runner.ROOT_PREFIX}*"))
        sleeping_call(server.address)
        deadline = time.monotonic() + 20
        sandboxes: set[int] = set()
        while time.monotonic() < deadline:
            # setpriv/unshare, the namespace's PID 1 and the worker running the user's code
            sandboxes = {p for p in children(server.process.pid) if _is_sandbox(p)}
            if len(sandboxes) >= 2:
                break
            time.sleep(0.05)
        assert len(sandboxes) >= 2, "the custom code did not start"
        leaked = set(Path(tempfile.gettempdir()).glob(f"{runner.ROOT_PREFIX}*")) - before
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(10)
        gone = time.monotonic() + 5
        while any(alive(p) for p in sandboxes) and time.monotonic() < gone:
            time.sleep(0.05)
        assert not [p for p in sandboxes if alive(p)], "sandbox processes outlived the server"
    finally:
        server.stop()
    assert leaked, "the killed server's run root should be left behind"
    restarted = Evald("--enable-custom-code", "--data-dir", str(tmp_path))
    try:
        assert not [root for root in leaked if root.exists()]
    finally:
        restarted.stop()


def _is_sandbox(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"_child.py" in command


def test_the_wall_limit_holds_without_the_server() -> None:
    """The namespace's PID 1 kills the worker at the limit it is given, with nobody else
    watching: here the caller just waits."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox needs root")
    root = tempfile.mkdtemp(prefix=f"{runner.ROOT_PREFIX}{os.getpid()}-")
    os.chmod(root, 0o555)
    job: dict[str, Any] = {
        "code": SLEEPER,
        "function": "evaluate",
        "argument": {},
        "root": root,
        "uid": 65534,
        "gid": 65534,
        "cpu": 30,
        "memory": 512 * 2**20,
        "nofile": 8,
        "max_text": 1000,
    }
    command = ["unshare", *runner.NAMESPACES, "--", sys.executable, "-I", "-S", "-B"]
    began = time.monotonic()
    try:
        done = subprocess.run(
            [*command, str(runner.CHILD), "1"],
            input=json.dumps(job).encode(),
            capture_output=True,
            timeout=20,
            check=False,
            env={},
            cwd=root,
        )
    finally:
        os.rmdir(root)
    assert time.monotonic() - began < 10  # killed at ~1 s, not after the code's 60 s
    assert done.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL)
