"""The pytest plugin of :mod:`evald.testing` (entry point ``pytest11``: ``evald``).

It adds the ``--evald-server ADDR`` option (else ``EVALD_SERVER``; neither: score in the test
process) and the session-wide ``evald`` fixture, an :class:`~evald.testing.Evald`. Loading the
plugin registers only those: nothing is scored, and no metric or gRPC module is imported, until
a test uses the fixture.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from evald.testing import Evald

SERVER_ENV = "EVALD_SERVER"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evald", "evald metrics in tests")
    group.addoption(
        "--evald-server",
        metavar="ADDR",
        default=None,
        help=f"score through the evald server at HOST:PORT (default ${SERVER_ENV}, else in "
        "the test process)",
    )


@pytest.fixture(scope="session")
def evald(pytestconfig: pytest.Config) -> Iterator[Evald]:
    """Scores rows with evald's metrics and asserts on them: ``evald.score``,
    ``evald.assert_metric``, ``evald.assert_dataset``, ``evald.check``."""
    server = pytestconfig.getoption("evald_server") or os.environ.get(SERVER_ENV) or None
    client = Evald(server)
    try:
        yield client
    finally:
        client.close()
