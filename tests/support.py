"""Test helpers: a real evald gRPC server on 127.0.0.1, port 0, in a background thread or in
a process of its own, and the long-running operation calls the job tests make."""

from __future__ import annotations

import asyncio
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
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from evald.call import Call, Services
from evald.config import Settings
from evald.judges import Judges
from evald.metrics.catalog import builtin
from evald.sandbox import Sandbox
from evald.server import RunningServer, start
from evald_proto.aiplatform.v1 import evaluation_service_pb2 as v1
from evald_proto.aiplatform.v1 import evaluation_service_pb2_grpc as v1_grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as v1beta1
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2_grpc as v1beta1_grpc
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import duration_pb2

from tests.fakes import judge_config

MESSAGES = {"v1beta1": v1beta1, "v1": v1}
CALL = Call(Services(Judges(), Sandbox(enabled=False), builtin()))
"""A request's Call for metrics that use none of a server's services (computed metrics)."""
STUBS = {"v1beta1": v1beta1_grpc.EvaluationServiceStub, "v1": v1_grpc.EvaluationServiceStub}
EVALD = shutil.which("evald", path=str(Path(sys.executable).parent)) or "evald"


class ServerThread:
    """Runs ``evald.server.start`` on its own event loop so sync tests can call it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.running: RunningServer | None = None

    def __enter__(self) -> ServerThread:
        self.thread.start()
        self.running = self.call(start(self.settings))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.running is not None:
            self.call(self.running.stop(0))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()  # an unclosed loop leaks its sockets into later tests' warnings

    def call(self, coro: Any) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(30)

    @property
    def address(self) -> str:
        assert self.running is not None
        return self.running.address


@contextmanager
def serving(**settings: Any) -> Iterator[ServerThread]:
    """A started server with ``Settings(port=0, **settings)``, watching the tests' judge config
    file (:data:`tests.fakes.judge_config.CONFIG`) unless told otherwise."""
    settings.setdefault("judge_config", judge_config.CONFIG)
    with ServerThread(Settings(port=0, **settings)) as server:
        yield server


def stub(channel: grpc.Channel, version: str = "v1beta1") -> Any:
    """An EvaluationService stub of the given API version."""
    return STUBS[version](channel)  # type: ignore[no-untyped-call]


class ServeProcess:
    """``evald serve --port 0 ARGS`` in a subprocess of its own process group (a kill takes
    the processes it started along), optionally run through ``wrap`` (e.g. ``unshare``), with
    ``EVALD_*`` variables left out of its environment. Its JSON log lines (stderr) are read on
    a thread; :meth:`ready` waits for the "serving" line."""

    def __init__(self, args: Sequence[str], wrap: Sequence[str] = ()) -> None:
        self.wrapped = bool(wrap)
        self.process = subprocess.Popen(
            [*wrap, EVALD, "serve", "--port", "0", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if not k.startswith("EVALD_")},
            start_new_session=True,
        )
        self.log: list[str] = []
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.address = self.url = ""

    def ready(self, timeout: float = 60) -> ServeProcess:
        """Wait for the "serving" log line; sets :attr:`address` (gRPC) and :attr:`url`
        (HTTP, when served). Processes started side by side load at the same time."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("msg") == "serving":
                    self.address = f"127.0.0.1:{record['port']}"
                    self.url = str(record.get("http") or "")
                    return self

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            self.lines.put(line)

    def server_pid(self) -> int:
        """The server's PID (here): with ``wrap``, the wrapper's one child."""
        if not self.wrapped:
            return self.process.pid
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        (child,) = children.read_text().split()
        return int(child)

    def kill(self) -> None:
        """SIGKILL the server and every process it started, as an OOM kill, a lost node or a
        container stop would: nothing gets to flush, no lease is released."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM (to the server itself: a wrapper may ignore it while it waits), 15 s to
        stop, then SIGKILL to whatever is left in the group."""
        try:
            if self.process.poll() is None:
                with contextlib.suppress(ProcessLookupError, ValueError, OSError):
                    os.kill(self.server_pid(), signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(15)
        finally:
            self.kill()
        self.reader.join(5)  # the pipe is at EOF once every holder is gone
        assert self.process.stderr is not None
        if not self.reader.is_alive():
            self.process.stderr.close()


def operation(channel: grpc.Channel, name: str, wait: float = 0) -> Any:
    """The long-running operation ``name``: ``GetOperation``, or ``WaitOperation`` for up to
    ``wait`` seconds."""
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


def progress(done: Any) -> Any:
    """The progress a dataset job's operation reports."""
    return evald_ops.EvaluateDatasetOperationMetadata.FromString(done.metadata.value).progress
