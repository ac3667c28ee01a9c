"""A real PostgreSQL for the tests: one server per test session (per xdist worker), started from
the local binaries (``initdb``, ``postgres``: on PATH, /usr/local/bin, or Debian's
/usr/lib/postgresql/<version>/bin), and a fresh database per test.

Without the binaries or psycopg the PostgreSQL tests are skipped, except in CI (``CI`` set),
where they fail: CI installs Debian's ``postgresql`` package (see .ci/run). As root the server
runs as ``nobody`` (postgres refuses to run as root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

UNPRIVILEGED = "nobody"


def find_binaries() -> Path | None:
    """The directory holding ``initdb`` and ``postgres``, or None."""
    candidates = []
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).resolve().parent)
    candidates.append(Path("/usr/local/bin"))
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    candidates += [Path(p) for p in versions]
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "postgres").exists():
            return folder
    return None


def unavailable(reason: str) -> None:
    """Skip, or fail in CI (where PostgreSQL is installed and must be tested)."""
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class PostgresCluster:
    """A running server on loopback ``port`` (trust authentication, user ``postgres``)."""

    port: int

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)


@contextlib.contextmanager
def running_cluster() -> Iterator[PostgresCluster]:
    """Start a throwaway server (data in a temporary directory), stop and remove it after."""
    try:
        import psycopg
    except ImportError:
        unavailable("psycopg is not installed (pip install 'evald[postgres]')")
    binaries = find_binaries()
    if binaries is None:
        unavailable("no PostgreSQL binaries (initdb, postgres) on this machine")
    assert binaries is not None
    root = Path(tempfile.mkdtemp(prefix="evald-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, UNPRIVILEGED)
        as_user = ["runuser", "-u", UNPRIVILEGED, "--"]
    data = root / "data"
    initdb = [str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"]
    subprocess.run([*as_user, *initdb, "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
    port = _free_port()
    log = (root / "server.log").open("wb")
    options = {
        "listen_addresses": "127.0.0.1",
        "max_connections": "200",
        # A test database need not survive a power cut: no syncs.
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
    }
    postgres = [str(binaries / "postgres"), "-D", str(data), "-p", str(port), "-k", str(root)]
    server = subprocess.Popen(
        [*as_user, *postgres, *(f"-c{key}={value}" for key, value in options.items())],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    cluster = PostgresCluster(port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(cluster.url(), connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "PostgreSQL did not start: " + (root / "server.log").read_text()[-2000:]
                    ) from None
                time.sleep(0.1)
        yield cluster
    finally:
        _stop(server, data)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def _stop(server: subprocess.Popen[bytes], data: Path) -> None:
    # The postmaster's own PID (runuser may stand between): a fast shutdown.
    with contextlib.suppress(OSError, ValueError, IndexError):
        os.kill(int((data / "postmaster.pid").read_text().split()[0]), signal.SIGINT)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One PostgreSQL server for the session (per xdist worker)."""
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres_cluster: PostgresCluster) -> str:
    """The URL of a fresh, empty database for this test."""
    return postgres_cluster.create_database()
