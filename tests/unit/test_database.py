"""Every durable store behaves the same on both backends: SQLite files in the data dir and a
shared PostgreSQL database (a real server, see tests/pg.py). Also the migrations (versions,
concurrent start-ups, files made before versions existed) and the helpers of evald.database."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import TypeVar

import pytest
from evald.database import (
    POSTGRES,
    SQLITE,
    Backend,
    IntegrityError,
    Schema,
    Step,
    glob_regex,
    mask_url,
)
from evald.errors import AlreadyExists, NotFound
from evald.human.store import TABLES as HUMAN_TABLES
from evald.human.store import HumanStore, StoredTask
from evald.jobs import store as jobs
from evald.jobs.store import CANCELLING, QUEUED, RUNNING, JobStore
from evald.judges.cache import TABLES as JUDGE_TABLES
from evald.judges.cache import JudgeCache
from evald.judges.runtime import Judges
from evald.nemo import entities
from evald.nemo.entities import Entities
from evald.runs import imports
from evald.runs.imports import ImportStore, Parsed
from evald.store.metrics import TABLES as METRIC_TABLES
from evald.store.metrics import MetricStore
from evald.targets.base import Output
from evald.targets.cache import TABLES as TARGET_TABLES
from evald.targets.cache import TargetCache

T = TypeVar("T")
JOB = "projects/p/locations/l/operations/"
ELSEWHERE = "otherhost:1:1/1:{}"
"""An owner on another host: never found dead by PID, only by its lease."""


def run(coro: Awaitable[T]) -> T:
    async def wrapped() -> T:
        return await coro

    return asyncio.run(wrapped())


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """The stores' backend: SQLite files in a fresh data dir, or a fresh PostgreSQL database."""
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    made = Backend(tmp_path / "data", url, pool_size=4)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def other(backend: Backend) -> Iterator[Callable[[], Backend]]:
    """Makes another process's backend on the same stores (same data dir or database)."""
    made: list[Backend] = []

    def make() -> Backend:
        made.append(Backend(backend.data_dir, backend.url, pool_size=2))
        return made[-1]

    yield make
    for each in made:
        each.close()


# Jobs: leases, takeover, rows.


def test_job_rows_are_stored_once_whatever_writes_them(backend: Backend) -> None:
    store = JobStore(backend.open(jobs.TABLES), "a:1:1/1:x")
    name = JOB + "1"

    async def scenario() -> None:
        await store.create(name, b"\x00req\xff", "/out/1")
        await store.add_rows(name, [(0, False, '{"row":0}'), (1, True, '{"row":1}')])
        # A taken-over job writing a row again (and new ones): the stored row is kept.
        await store.add_rows(name, [(1, False, '{"row":"again"}'), (2, False, '{"row":2}')])
        assert await store.done_rows(name) == {0, 1, 2}
        assert await store.results(name) == ['{"row":0}', '{"row":1}', '{"row":2}']
        job = await store.get(name)
        assert job is not None
        assert (job.request, job.rows_done, job.rows_failed) == (b"\x00req\xff", 3, 1)
        await store.update(name, state=RUNNING, rows_total=3, response=b"\x01")
        job = await store.get(name)
        assert job is not None
        assert (job.state, job.rows_total, job.response) == (RUNNING, 3, b"\x01")
        await store.delete(name)
        assert await store.get(name) is None
        assert await store.done_rows(name) == set()

    run(scenario())


def test_a_lapsed_lease_is_taken_over_by_exactly_one_replica(
    backend: Backend, other: Callable[[], Backend]
) -> None:
    first = JobStore(backend.open(jobs.TABLES), ELSEWHERE.format("first"))
    name = JOB + "2"
    run(first.create(name, b"r", "/out"))
    contenders = [
        JobStore(other().open(jobs.TABLES), ELSEWHERE.format(f"replica{i}")) for i in range(4)
    ]
    # The lease is fresh: nobody takes the job.
    assert [run(c.claim(stale_after=60)) for c in contenders] == [[], [], [], []]
    assert run(first.beat([name])) == {name: QUEUED}
    # Silent for longer than the lease: the contenders race, one wins.
    run(first.update(name, heartbeat=0.0))
    won: dict[int, list[str]] = {}

    def claim(i: int) -> None:
        won[i] = run(contenders[i].claim(stale_after=5))

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(contenders))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won.values()) == [[], [], [], [name]]
    winner = next(contenders[i] for i, taken in won.items() if taken)
    # The old owner learns it lost the job; the winner holds it.
    assert run(first.beat([name])) == {}
    assert run(winner.beat([name])) == {name: QUEUED}
    job = run(winner.get(name))
    assert job is not None
    assert job.owner == winner.owner


def test_cancel_and_finished_jobs_are_not_claimed(backend: Backend) -> None:
    first = JobStore(backend.open(jobs.TABLES), ELSEWHERE.format("first"))
    second = JobStore(backend.open(jobs.TABLES), ELSEWHERE.format("second"))

    async def scenario() -> None:
        for i, state in enumerate(["SUCCEEDED", RUNNING, "FAILED"]):
            await first.create(f"{JOB}{i}", b"r", "/out")
            await first.update(f"{JOB}{i}", state=state, heartbeat=0.0)
        assert await first.request_cancel(f"{JOB}1") == CANCELLING
        assert await first.request_cancel(f"{JOB}0") == "SUCCEEDED"
        assert await first.request_cancel(f"{JOB}9") is None
        assert await second.claim(stale_after=5) == [f"{JOB}1"]

    run(scenario())


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("projects/*/locations/*/operations/*", ["a/1", "b/2", "b/x*"]),
        ("projects/p/locations/b/operations/*", ["b/2", "b/x*"]),
        ("projects/p/locations/*/operations/2", ["b/2"]),
        ("projects/p/locations/b/operations/x[*]", ["b/x*"]),
        ("projects/p/locations/?/operations/1", ["a/1"]),
        ("projects/p/locations/c/operations/*", []),
    ],
)
def test_jobs_are_found_by_glob(backend: Backend, pattern: str, expected: list[str]) -> None:
    store = JobStore(backend.open(jobs.TABLES), "a:1:1/1:x")

    async def scenario() -> list[str]:
        for place, job in (("a", "1"), ("b", "2"), ("b", "x*")):
            await store.create(f"projects/p/locations/{place}/operations/{job}", b"r", "/out")
        listed = await store.list("projects/p/locations/b/")
        assert sorted(j.name[-2:] for j in listed) == ["/2", "x*"]
        found = await store.glob(pattern)
        return sorted(j.name.split("locations/")[1].replace("/operations", "") for j in found)

    assert run(scenario()) == expected


# Registered metrics, caches, NeMo entities.


def test_metric_store(backend: Backend) -> None:
    store = MetricStore(backend.open(METRIC_TABLES))
    base = "projects/p/locations/l/evaluationMetrics/"

    async def scenario() -> None:
        assert await store.create(base + "b", "B", "second", b"\x00metric") is not None
        assert await store.create(base + "a", "A", "first", b"m") is not None
        assert await store.create(base + "a", "again", "", b"x") is None  # the name is taken
        got = await store.get(base + "b")
        assert got is not None
        assert (got.display_name, got.metric) == ("B", b"\x00metric")
        assert [m.name for m in await store.list(base)] == [base + "a", base + "b"]
        assert [m.name for m in await store.list(base, after=base + "a")] == [base + "b"]
        assert await store.list("projects/q/") == []
        assert await store.delete(base + "a") is True
        assert await store.delete(base + "a") is False
        assert await store.get(base + "a") is None

    run(scenario())


def test_judge_cache(backend: Backend) -> None:
    cache = JudgeCache(backend.open(JUDGE_TABLES))

    async def scenario() -> None:
        assert await cache.get("k") is None
        await cache.put("k", "first")
        await cache.put("k", "second")  # replaced
        await cache.put("j", "other")
        assert (await cache.get("k"), await cache.get("j")) == ("second", "other")

    run(scenario())


def test_the_judge_cache_follows_the_server_backend(backend: Backend, tmp_path: Path) -> None:
    """In the shared database with ``database_url``; else the file the judge config names."""
    table = {"g": {"backend": "gemini", "model": "m", "api_key_env": "K"}}
    env = {"K": "k", "EVALD_JUDGE_CACHE": str(tmp_path / "judges.sqlite3")}
    cache = Judges(None, table, env, backend).runtime().cache
    assert cache is not None
    assert cache.database.dialect == (POSTGRES if backend.shared else SQLITE)
    run(cache.put("k", "answer"))
    assert (tmp_path / "judges.sqlite3").exists() is not backend.shared


def test_target_cache(backend: Backend) -> None:
    cache = TargetCache(backend.open(TARGET_TABLES))

    async def scenario() -> None:
        assert await cache.get("k") is None
        await cache.put("k", Output(text="one"))
        await cache.put("k", Output(text="two"))
        found = await cache.get("k")
        assert found is not None
        assert (found.text, found.cached) == ("two", True)

    run(scenario())


def test_imported_runs(backend: Backend) -> None:
    store = ImportStore(backend.open(imports.TABLES))
    lines = ['{"row": 0, "bleu": 0.5}', '{"row": 1, "bleu": 1.0}']

    async def scenario() -> None:
        first = await store.add(Parsed("first", lines, ["bleu"], {"bleu": {"mean": 0.75}}))
        second = await store.add(Parsed("second", lines[:1], ["bleu"], None))
        assert [r.id for r in await store.list()] == [second.id, first.id]  # newest first
        got = await store.get(first.id)
        assert got is not None
        assert (got.name, got.rows_total, got.aggregation) == ("first", 2, {"bleu": {"mean": 0.75}})
        assert await store.records(first.id) == lines
        assert await store.delete(first.id) is True
        assert await store.delete(first.id) is False
        assert (await store.get(first.id), await store.records(first.id)) == (None, [])

    run(scenario())


def test_human_ratings(backend: Backend, other: Callable[[], Backend]) -> None:
    store = HumanStore(backend.open(HUMAN_TABLES))
    task = StoredTask("t1", {"mechanism": "thumbs", "models": ["m"]}, 2, 1.5, "admin")

    async def scenario() -> None:
        await store.create(task, [{"prompt": "p0"}, {"prompt": "p1"}])
        assert await store.get("t1") == task
        assert await store.row("t1", 1) == {"prompt": "p1"}
        await store.rate("t1", 0, "ann", "m", "up")
        await store.rate("t1", 0, "ann", "m", "down")  # changed: one rating, the last
        await store.rate("t1", 1, "bob", "m", "up")
        assert (await store.count("t1"), await store.count("t1", "ann")) == (2, 1)
        # Another replica (or a restart) reads what was written: every rating is committed.
        again = HumanStore(other().open(HUMAN_TABLES))
        assert [(r.rater, r.value) for r in await again.ratings("t1")] == [
            ("ann", "down"),
            ("bob", "up"),
        ]
        assert await store.delete("t1") is True
        assert await store.get("t1") is None

    run(scenario())


def test_nemo_entities(backend: Backend) -> None:
    store = Entities(backend.open(entities.TABLES))

    async def scenario() -> None:
        made = await store.create("target", {"name": "t1", "type": "model"})
        await store.create("target", {"name": "t2"})
        with pytest.raises(AlreadyExists):
            await store.create("target", {"name": "t1"})
        assert (await store.get("target", "default", "t1"))["id"] == made["id"]
        assert (await store.by_id("target", made["id"]))["type"] == "model"
        changed = await store.update("target", "default", "t1", {"type": "other", "id": "no"})
        assert (changed["type"], changed["id"]) == ("other", made["id"])
        with pytest.raises(AlreadyExists):
            await store.update("target", "default", "t1", {"name": "t2"})
        page = await store.list("target", {}, newest_first=False)
        assert ([e["name"] for e in page.items], page.total) == (["t1", "t2"], 2)
        assert (await store.list("target", {"name": "t2"})).total == 1
        await store.put("result", {**made, "name": "r", "score": 1})
        await store.put("result", {**made, "name": "r", "score": 2})  # replaced
        assert (await store.get("result", "default", "r"))["score"] == 2
        await store.delete("target", "default", "t1")
        with pytest.raises(NotFound):
            await store.get("target", "default", "t1")
        with pytest.raises(NotFound):
            await store.delete_id("target", made["id"])

    run(scenario())


# Migrations.

ONE = Step(
    ("CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY)",),
    ("CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY)",),
)
TWO = Step(
    ("ALTER TABLE things ADD COLUMN size INTEGER NOT NULL DEFAULT 0",),
    ("ALTER TABLE things ADD COLUMN size INTEGER NOT NULL DEFAULT 0",),
)


def things(*steps: Step) -> Schema:
    return Schema("things", "things.sqlite3", steps)


def test_migrations_run_once_and_in_order(backend: Backend, other: Callable[[], Backend]) -> None:
    first = backend.open(things(ONE))
    assert first.migrate() == 0
    with first.transaction() as db:
        db.execute("INSERT INTO things (id) VALUES (?)", ("a",))
    with pytest.raises(IntegrityError), first.transaction() as db:
        db.execute("INSERT INTO things (id) VALUES (?)", ("a",))
    # A newer evald: one more step, applied over the stored rows; then nothing more to do.
    upgraded = other().open(things(ONE, TWO))
    assert upgraded.migrate() == 1
    assert other().open(things(ONE, TWO)).migrate() == 2
    with upgraded.transaction() as db:
        assert db.execute("SELECT id, size FROM things").fetchall() == [("a", 0)]
        assert db.execute(
            "SELECT version FROM schema_version WHERE store = ?", ("things",)
        ).fetchall() == [(2,)]
    # An older evald refuses tables a newer one migrated.
    with pytest.raises(RuntimeError, match="version 2, newer than this evald knows"):
        other().open(things(ONE)).migrate()


def test_replicas_starting_together_migrate_once(other: Callable[[], Backend]) -> None:
    replicas = [other() for _ in range(4)]
    befores: list[int] = []
    errors: list[BaseException] = []

    def start(replica: Backend) -> None:
        try:
            befores.append(replica.open(things(ONE, TWO)).migrate())
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(r,)) for r in replicas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(befores) == [0, 2, 2, 2]


def test_a_jobs_file_made_before_versions_opens_and_migrates(tmp_path: Path) -> None:
    path = tmp_path / jobs.DB_FILE
    # The first version of the file: no kind, no versions.
    with closing(sqlite3.connect(path)) as old, old:
        old.execute(
            "CREATE TABLE jobs (name TEXT PRIMARY KEY, request BLOB NOT NULL, state TEXT NOT NULL, "
            "rows_total INTEGER NOT NULL DEFAULT 0, output_dir TEXT NOT NULL, "
            "create_time REAL NOT NULL, update_time REAL NOT NULL, "
            "owner TEXT NOT NULL DEFAULT '', heartbeat REAL NOT NULL DEFAULT 0, error BLOB, "
            "response BLOB)"
        )
        old.execute(jobs.SCHEMA[1])
    with closing(sqlite3.connect(path)) as old, old:
        old.execute(
            "INSERT INTO jobs (name, request, state, output_dir, create_time, update_time) "
            "VALUES ('j', x'00', 'QUEUED', '/out', 1, 1)"
        )
    store = JobStore(path, "a:1:1/1:x")
    job = run(store.get("j"))
    assert job is not None
    assert (job.state, job.kind) == (QUEUED, "")
    with closing(sqlite3.connect(path)) as db, db:
        assert db.execute("SELECT store, version FROM schema_version").fetchall() == [("jobs", 1)]


def test_files_made_by_the_previous_release_keep_working(tmp_path: Path) -> None:
    """Today's files (current columns, no schema_version) migrate without a change."""
    path = tmp_path / jobs.DB_FILE
    with closing(sqlite3.connect(path)) as old, old:
        for statement in jobs.SCHEMA:
            old.execute(statement)
        old.execute(
            "INSERT INTO jobs (name, request, state, output_dir, create_time, update_time, kind) "
            "VALUES ('j', x'00', 'RUNNING', '/out', 1, 1, 'nemo')"
        )
    job = run(JobStore(path, "a:1:1/1:x").get("j"))
    assert job is not None
    assert job.kind == "nemo"


def test_the_postgres_dialect_is_used_for_a_url(backend: Backend) -> None:
    database = backend.open(jobs.TABLES)
    assert (database.dialect == POSTGRES) == backend.shared
    assert (backend.data_dir / jobs.DB_FILE).exists() is False  # nothing made before first use
    database.migrate()
    assert (backend.data_dir / jobs.DB_FILE).exists() is not backend.shared


# Helpers.


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://evald:s3cret@db:5432/evald", "postgresql://evald:***@db:5432/evald"),
        ("postgresql://evald:p%40ss@db/evald?sslmode=require", "postgresql://evald:***@db/evald?sslmode=require"),
        ("postgresql://evald@db/evald", "postgresql://evald@db/evald"),
        ("postgresql://:only@db/evald", "postgresql://:***@db/evald"),
        ("postgresql://db/evald", "postgresql://db/evald"),
    ],
)  # fmt: skip
def test_database_urls_are_shown_with_the_password_masked(url: str, shown: str) -> None:
    assert mask_url(url) == shown
    assert "s3cret" not in Backend(Path("."), url).describe()


@pytest.mark.parametrize(
    ("pattern", "regex"),
    [
        ("projects/*/x", "^projects/.*/x$"),
        ("a?c", "^a.c$"),
        ("op[*]", "^op[*]$"),
        ("a.b+c", r"^a\.b\+c$"),
        ("[^ab]", "^[^ab]$"),
        ("x[", r"^x\[$"),
    ],
)
def test_glob_patterns_become_regular_expressions(pattern: str, regex: str) -> None:
    assert glob_regex(pattern) == regex
