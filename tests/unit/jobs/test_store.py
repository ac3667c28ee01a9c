"""The job store: idempotent per-row results; who owns an active job and when it is taken over."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from evald.jobs.store import (
    CANCELLING,
    RUNNING,
    Job,
    JobStore,
    new_owner,
    owner_alive,
)
from evald.orphans import process_start

HOST = socket.gethostname()
PID = os.getpid()
DEAD_PID = 999_999_999  # above any pid_max
JOB = "projects/p/locations/l/operations/"


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def other_process() -> Iterator[int]:
    """The PID of a live process on this host other than this one."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


def earlier_start(pid: int) -> str:
    """A start that is not ``pid``'s: as if an earlier process had that PID."""
    boot, _, ticks = process_start(pid).partition("/")
    return f"{boot}/{int(ticks) - 1}"


def test_rows_are_keyed_by_index(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite3", new_owner())

    async def scenario() -> None:
        await store.create(JOB + "1", b"req", str(tmp_path))
        name = JOB + "1"
        await store.add_rows(name, [(0, False, '{"row":0}'), (1, True, '{"row":1}')])
        await store.add_rows(name, [(1, False, '{"row":"again"}'), (2, False, '{"row":2}')])
        assert await store.done_rows(name) == {0, 1, 2}
        assert await store.results(name) == ['{"row":0}', '{"row":1}', '{"row":2}']
        job = await store.get(name)
        assert job is not None
        assert (job.rows_done, job.rows_failed) == (3, 1)

    run(scenario())


def test_every_owner_id_is_new_and_names_this_process() -> None:
    first, second = new_owner(), new_owner()
    assert first != second
    host, pid, start, instance = first.split(":")
    assert (host, pid, start) == (HOST, str(PID), process_start(PID))
    assert start
    assert len(instance) == 16


def test_owner_alive(other_process: int) -> None:
    me = process_start(PID)
    cases = {
        # This process, another runner in it (same start): alive, left its lease.
        f"{HOST}:{PID}:{me}:0123456789abcdef": True,
        # The same host name and PID, an earlier start (PID 1 in a restarted container): gone.
        f"{HOST}:{PID}:{earlier_start(PID)}:0123456789abcdef": False,
        # Written by a version without per-start ids, with this host name and PID: gone.
        f"{HOST}:{PID}": False,
        # Another live process on this host.
        f"{HOST}:{other_process}:{process_start(other_process)}:00": True,
        f"{HOST}:{other_process}": True,
        # Its PID, but another start: the PID was reused, the owner is gone.
        f"{HOST}:{other_process}:{earlier_start(other_process)}:00": False,
        # A PID that does not exist on this host.
        f"{HOST}:{DEAD_PID}:{me}:00": False,
        f"{HOST}:{DEAD_PID}": False,
        # A start that cannot be read: the PID alone decides.
        f"{HOST}:{PID}::00": True,
        # Another host: cannot be checked, assumed alive (the lease decides).
        f"elsewhere:{DEAD_PID}:{me}:00": True,
        "elsewhere:1": True,
        "": False,
    }
    assert {owner: owner_alive(owner) for owner in cases} == cases


def test_claim_takes_over_by_lease_or_gone_owner(tmp_path: Path, other_process: int) -> None:
    path = tmp_path / "jobs.sqlite3"
    store = JobStore(path, new_owner())
    sibling = JobStore(path, new_owner())  # another runner in this process, heartbeat fresh
    live = f"{HOST}:{other_process}:{process_start(other_process)}:00"
    previous = f"{HOST}:{PID}:{earlier_start(PID)}:0123456789abcdef"
    jobs = {  # name: (owner, state, seconds since its heartbeat, taken over)
        "mine": (store.owner, RUNNING, 0, False),
        "mine-stale": (store.owner, RUNNING, 3600, False),  # never taken from itself
        "sibling": (sibling.owner, RUNNING, 0, False),
        "sibling-stale": (sibling.owner, RUNNING, 3600, True),
        "live": (live, RUNNING, 0, False),
        "live-stale": (live, RUNNING, 3600, True),
        "remote": ("elsewhere:1:x/1:00", RUNNING, 0, False),
        "remote-stale": ("elsewhere:1:x/1:00", RUNNING, 3600, True),
        "previous-start": (previous, RUNNING, 0, True),
        "previous-start-cancelling": (previous, CANCELLING, 0, True),
        "previous-version": (f"{HOST}:{PID}", RUNNING, 0, True),
        "dead-pid": (f"{HOST}:{DEAD_PID}:x/1:00", RUNNING, 0, True),
        "finished": (previous, "SUCCEEDED", 3600, False),
    }

    async def scenario() -> None:
        for name, (owner, state, age, _) in jobs.items():
            await store.create(JOB + name, b"", str(tmp_path))
            await store.update(JOB + name, owner=owner, state=state)
            await asyncio.to_thread(_set_heartbeat, path, JOB + name, age)
        taken = await store.claim(stale_after=60)
        assert sorted(taken) == sorted(JOB + name for name, job in jobs.items() if job[3])
        for name in taken:
            job = await store.get(name)
            assert job is not None
            assert job.owner == store.owner
            assert job.state == jobs[name.removeprefix(JOB)][1]
        assert await store.claim(stale_after=60) == []  # now ours
        # The runner that lost a job sees it gone from its heartbeat; its others remain.
        states = await sibling.beat([JOB + "sibling", JOB + "sibling-stale"])
        assert states == {JOB + "sibling": RUNNING}

    run(scenario())


def _set_heartbeat(path: Path, name: str, age: float) -> None:
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE jobs SET heartbeat = ? WHERE name = ?", (time.time() - age, name))


def test_a_file_from_before_job_kinds_gets_the_column(tmp_path: Path) -> None:
    """A jobs file written before jobs had a kind opens, its jobs read as Vertex dataset jobs,
    and new jobs of a kind are stored beside them."""
    path = tmp_path / "jobs.sqlite3"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "CREATE TABLE jobs (name TEXT PRIMARY KEY, request BLOB NOT NULL, state TEXT NOT "
            "NULL, rows_total INTEGER NOT NULL DEFAULT 0, output_dir TEXT NOT NULL, create_time "
            "REAL NOT NULL, update_time REAL NOT NULL, owner TEXT NOT NULL DEFAULT '', heartbeat "
            "REAL NOT NULL DEFAULT 0, error BLOB, response BLOB)"
        )
        db.execute(
            "INSERT INTO jobs (name, request, state, output_dir, create_time, update_time) "
            "VALUES ('old', x'', 'SUCCEEDED', '/out', 1, 1)"
        )
    store = JobStore(path, new_owner())
    old = run(store.get("old"))
    assert isinstance(old, Job)
    assert old.kind == ""
    run(store.create("new", b"{}", "/out", "model"))
    new = run(store.get("new"))
    assert isinstance(new, Job)
    assert new.kind == "model"
