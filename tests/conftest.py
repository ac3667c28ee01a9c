from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from tests.support import ServerThread, serving


@pytest.fixture(scope="session")
def server() -> Iterator[ServerThread]:
    """One real evald server on 127.0.0.1 (port 0) for the test session."""
    with serving() as running:
        yield running


@pytest.fixture(scope="session")
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    """An insecure channel to the session server."""
    with grpc.insecure_channel(server.address) as ch:
        yield ch
