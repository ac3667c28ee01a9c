from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.fakes import judge_config
from tests.support import ServerThread, serving

SLOW_MODULES = frozenset(
    {
        "unit/test_bench.py",  # runs the benchmark's quick server section
        "e2e/test_shutdown.py",  # each test starts and signals an `evald serve` process
        "e2e/test_workers.py",  # supervisor + worker processes
        "e2e/test_jobs_restart.py",  # kills and restarts a server process
        "e2e/test_gateway_cli.py",  # gateway processes
        "e2e/test_cli_evaluate.py",  # `evald evaluate` processes
    }
)
"""Test modules marked ``slow`` (left out by ``make test-quick``): they start processes."""
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.relative_to(TESTS).as_posix() in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture(autouse=True)
def _no_judge_left_configured() -> Iterator[None]:
    """The judge a test configured is gone for the next one (servers outlive tests)."""
    yield
    judge_config.remove()
