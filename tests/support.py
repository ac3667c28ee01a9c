"""Test helpers: a real evald gRPC server on 127.0.0.1, port 0, in a background thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
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

from tests.fakes import judge_config

MESSAGES = {"v1beta1": v1beta1, "v1": v1}
CALL = Call(Services(Judges(), Sandbox(enabled=False), builtin()))
"""A request's Call for metrics that use none of a server's services (computed metrics)."""
STUBS = {"v1beta1": v1beta1_grpc.EvaluationServiceStub, "v1": v1_grpc.EvaluationServiceStub}


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
