"""The job store: idempotent per-row results, take-over of jobs whose process is gone."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from evald.jobs.store import CANCELLING, RUNNING, JobStore, owner_alive, this_owner


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_rows_are_keyed_by_index(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite3")

    async def scenario() -> None:
        await store.create("projects/p/locations/l/operations/1", b"req", str(tmp_path))
        name = "projects/p/locations/l/operations/1"
        await store.add_rows(name, [(0, False, '{"row":0}'), (1, True, '{"row":1}')])
        await store.add_rows(name, [(1, False, '{"row":"again"}'), (2, False, '{"row":2}')])
        assert await store.done_rows(name) == {0, 1, 2}
        assert await store.results(name) == ['{"row":0}', '{"row":1}', '{"row":2}']
        job = await store.get(name)
        assert job is not None
        assert (job.rows_done, job.rows_failed) == (3, 1)

    run(scenario())


def test_dead_owner_is_taken_over(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite3")
    dead = f"{socket.gethostname()}:999999999"
    assert not owner_alive(dead)
    assert owner_alive(this_owner())

    async def scenario() -> None:
        for n in ("1", "2", "3"):
            await store.create(f"projects/p/locations/l/operations/{n}", b"", str(tmp_path))
        await store.update("projects/p/locations/l/operations/1", owner=dead, state=RUNNING)
        # A live owner with a fresh heartbeat keeps its job.
        await store.update("projects/p/locations/l/operations/2", owner="elsewhere:1")
        await store.update("projects/p/locations/l/operations/3", owner=dead, state=CANCELLING)
        taken = await store.claim(stale_after=60)
        assert sorted(taken) == [
            "projects/p/locations/l/operations/1",
            "projects/p/locations/l/operations/3",
        ]
        assert await store.claim(stale_after=60) == []  # now ours

    run(scenario())
