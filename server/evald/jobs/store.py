"""Dataset jobs and their per-row results in one SQLite file (``jobs.sqlite3`` in the data dir).

A job row holds the request, its state and who runs it: the ``owner`` id of one runner in one
process start (see :func:`new_owner`) and a heartbeat that owner refreshes, its lease. Another
owner takes an active job over once the lease lapses (no heartbeat for ``stale_after`` seconds),
or at once when the owner's process is provably gone: a PID on this host that no longer exists
or now belongs to a process started at another time. So several server processes on one data
dir never run the same job twice while their heartbeats are fresh, and a restarted process
resumes its jobs even when it has the same host name and PID as before (PID 1 in a container).

Results are keyed by (job, row index) and written with ``INSERT ... ON CONFLICT DO NOTHING``:
writing a row twice is harmless, and a restarted job skips every row that already has a result.
Every call opens its own connection off the event loop; WAL lets readers (GetOperation) run beside
the writer. With ``database_url`` the same tables live in PostgreSQL, shared by every replica:
a job is run by the replica holding its lease, and one whose replica died is taken over by
another once the lease lapses, resuming from the rows stored in the database.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import secrets
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evald.database import POSTGRES, Database, Schema, Step, add_column, glob_regex, sqlite
from evald.orphans import process_start

DB_FILE = "jobs.sqlite3"
SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS jobs (
        name TEXT PRIMARY KEY,
        request BLOB NOT NULL,
        state TEXT NOT NULL,
        rows_total INTEGER NOT NULL DEFAULT 0,
        output_dir TEXT NOT NULL,
        create_time REAL NOT NULL,
        update_time REAL NOT NULL,
        owner TEXT NOT NULL DEFAULT '',
        heartbeat REAL NOT NULL DEFAULT 0,
        error BLOB,
        response BLOB,
        kind TEXT NOT NULL DEFAULT ''
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS job_rows (
        job TEXT NOT NULL,
        row INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (job, row)
    ) WITHOUT ROWID
    """,
)

COLUMNS = (("jobs", "kind", "TEXT NOT NULL DEFAULT ''"),)
"""Columns added since the first version of the file (added to an older file on first use)."""

POSTGRES_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS jobs (
        name TEXT PRIMARY KEY,
        request BYTEA NOT NULL,
        state TEXT NOT NULL,
        rows_total BIGINT NOT NULL DEFAULT 0,
        output_dir TEXT NOT NULL,
        create_time DOUBLE PRECISION NOT NULL,
        update_time DOUBLE PRECISION NOT NULL,
        owner TEXT NOT NULL DEFAULT '',
        heartbeat DOUBLE PRECISION NOT NULL DEFAULT 0,
        error BYTEA,
        response BYTEA,
        kind TEXT NOT NULL DEFAULT ''
    )
    """,
    "CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state)",
    """
    CREATE TABLE IF NOT EXISTS job_rows (
        job TEXT NOT NULL,
        row BIGINT NOT NULL,
        failed INTEGER NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (job, row)
    )
    """,
)

TABLES = Schema(
    "jobs",
    DB_FILE,
    (
        # 1: the tables as they were before versions (an older file gains what it lacks).
        Step(
            (*SCHEMA, *(add_column(*column) for column in COLUMNS)),
            POSTGRES_SCHEMA,
        ),
    ),
)
"""The jobs store's tables and their migrations (add a :class:`Step` to change them)."""

QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLING, CANCELLED = (
    "QUEUED",
    "RUNNING",
    "SUCCEEDED",
    "FAILED",
    "CANCELLING",
    "CANCELLED",
)
ACTIVE = (QUEUED, RUNNING, CANCELLING)
FINISHED = (SUCCEEDED, FAILED, CANCELLED)


def new_owner() -> str:
    """A new owner id, ``host:pid:start:random``: made once per runner, so an id written by an
    earlier start of a process with the same host name and PID is never taken for this one."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{process_start(pid)}:{secrets.token_hex(8)}"


def owner_alive(owner: str) -> bool:
    """Whether the process of ``owner`` may still be running (it is then left its lease).

    Only a process on this host can be found gone: its PID no longer exists, or belongs to a
    process that started at another time (this very process, when a restart got the same PID).
    A process elsewhere, or one whose start cannot be read, is assumed alive.
    """
    parts = owner.split(":")
    if len(parts) == 4:
        host, pid, start, _ = parts
    elif len(parts) == 2:  # ``host:pid``, from a version without per-start ids
        (host, pid), start = parts, ""
        if host == socket.gethostname() and pid == str(os.getpid()):
            return False  # an earlier start of this process: no runner of this one wrote it
    else:
        return bool(owner)
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    now = process_start(int(pid))
    return not (start and now and now != start)


@dataclass(frozen=True)
class Job:
    """One stored job."""

    name: str
    request: bytes
    """A serialized v1beta1 ``EvaluateDatasetRequest``."""
    state: str
    rows_total: int
    output_dir: str
    create_time: float
    update_time: float
    owner: str
    heartbeat: float
    error: bytes | None
    """A serialized ``google.rpc.Status`` once FAILED or CANCELLED."""
    response: bytes | None
    """A serialized ``EvaluateDatasetResponse`` once SUCCEEDED."""
    kind: str = ""
    """What the request is: "" a Vertex ``EvaluateDatasetRequest``, else the kind's own (see
    :class:`evald.jobs.runner.JobKind`)."""
    rows_done: int = 0
    rows_failed: int = 0


_COLUMNS = (
    "name, request, state, rows_total, output_dir, create_time, update_time, owner, heartbeat, "
    "error, response, kind"
)


class JobStore:
    """Jobs in ``database`` (or the SQLite file at that path, created on first use), as seen by
    the runner whose owner id is ``owner`` (from :func:`new_owner`); every method is async."""

    def __init__(self, database: Path | Database, owner: str) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self.owner = owner
        self._connect = self.database.transaction

    # Synchronous bodies, run in a thread by the async methods below.

    def _create(self, name: str, request: bytes, output_dir: str, kind: str) -> None:
        now = time.time()
        with self._connect() as db:
            db.execute(
                "INSERT INTO jobs (name, request, state, output_dir, create_time, update_time, "
                "owner, heartbeat, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, request, QUEUED, output_dir, now, now, self.owner, now, kind),
            )

    def _get(self, name: str) -> Job | None:
        with self._connect() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM jobs WHERE name = ?", (name,)).fetchone()
            if row is None:
                return None
            done, failed = db.execute(
                "SELECT count(*), coalesce(sum(failed), 0) FROM job_rows WHERE job = ?", (name,)
            ).fetchone()
        values = dict(zip(_COLUMNS.split(", "), row, strict=True))
        return Job(**values, rows_done=done, rows_failed=failed)

    def _list(self, prefix: str, offset: int, limit: int) -> list[Job]:
        with self._connect() as db:
            names = db.execute(
                "SELECT name FROM jobs WHERE substr(name, 1, ?) = ? "
                "ORDER BY create_time DESC, name LIMIT ? OFFSET ?",
                (len(prefix), prefix, limit, offset),
            ).fetchall()
        return [job for (name,) in names if (job := self._get(name)) is not None]

    def _update(self, name: str, **values: object) -> None:
        values["update_time"] = time.time()
        columns = ", ".join(f"{key} = ?" for key in values)
        with self._connect() as db:
            db.execute(f"UPDATE jobs SET {columns} WHERE name = ?", (*values.values(), name))

    def _request_cancel(self, name: str) -> str | None:
        with self._connect() as db:
            row = db.execute("SELECT state FROM jobs WHERE name = ?", (name,)).fetchone()
            if row is None:
                return None
            if row[0] in (QUEUED, RUNNING):
                db.execute(
                    "UPDATE jobs SET state = ?, update_time = ? WHERE name = ?",
                    (CANCELLING, time.time(), name),
                )
                return CANCELLING
        return str(row[0])

    def _delete(self, name: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM job_rows WHERE job = ?", (name,))
            db.execute("DELETE FROM jobs WHERE name = ?", (name,))

    def _claim(self, stale_after: float) -> list[str]:
        """Take over active jobs whose owner is gone or silent for ``stale_after`` seconds."""
        me, now = self.owner, time.time()
        taken = []
        with self._connect() as db:
            # PostgreSQL: rows another replica is claiming now are skipped, not waited for (the
            # owner check of the UPDATE below keeps each job to one taker either way).
            lock = " FOR UPDATE SKIP LOCKED" if self.database.dialect == POSTGRES else ""
            rows = db.execute(
                "SELECT name, owner, heartbeat FROM jobs WHERE state IN (?, ?, ?) AND owner != ?"
                + lock,
                (*ACTIVE, me),
            ).fetchall()
            for name, owner, heartbeat in rows:
                if owner_alive(owner) and now - heartbeat < stale_after:
                    continue
                cursor = db.execute(
                    "UPDATE jobs SET owner = ?, heartbeat = ? WHERE name = ? AND owner = ?",
                    (me, now, name, owner),
                )
                if cursor.rowcount:
                    taken.append(name)
        return taken

    def _beat(self, names: Sequence[str]) -> dict[str, str]:
        """Refresh the heartbeat of ``names``; the current states of those still owned here
        (cancel requests show; a job missing was taken over after its lease lapsed)."""
        now = time.time()
        with self._connect() as db:
            db.executemany(
                "UPDATE jobs SET heartbeat = ? WHERE name = ? AND owner = ?",
                [(now, name, self.owner) for name in names],
            )
            states = {}
            for name in names:
                row = db.execute(
                    "SELECT state FROM jobs WHERE name = ? AND owner = ?", (name, self.owner)
                ).fetchone()
                if row is not None:
                    states[name] = str(row[0])
        return states

    def _add_rows(self, name: str, rows: Sequence[tuple[int, bool, str]]) -> None:
        with self._connect() as db:
            db.executemany(
                "INSERT INTO job_rows (job, row, failed, result) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (job, row) DO NOTHING",
                [(name, index, int(failed), result) for index, failed, result in rows],
            )

    def _done_rows(self, name: str) -> set[int]:
        with self._connect() as db:
            rows = db.execute("SELECT row FROM job_rows WHERE job = ?", (name,)).fetchall()
        return {index for (index,) in rows}

    def _results(self, name: str) -> list[str]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT result FROM job_rows WHERE job = ? ORDER BY row", (name,)
            ).fetchall()
        return [result for (result,) in rows]

    def _glob(self, pattern: str, offset: int, limit: int) -> list[Job]:
        match = "name GLOB ?"
        if self.database.dialect == POSTGRES:
            match, pattern = "name ~ ?", glob_regex(pattern)
        with self._connect() as db:
            names = db.execute(
                f"SELECT name FROM jobs WHERE {match} "
                "ORDER BY create_time DESC, name LIMIT ? OFFSET ?",
                (pattern, limit, offset),
            ).fetchall()
        return [job for (name,) in names if (job := self._get(name)) is not None]

    async def create(self, name: str, request: bytes, output_dir: str, kind: str = "") -> None:
        """Store a new QUEUED job owned here."""
        await asyncio.to_thread(self._create, name, request, output_dir, kind)

    async def get(self, name: str) -> Job | None:
        """The job called ``name`` with its row counts, or None."""
        return await asyncio.to_thread(self._get, name)

    async def list(self, prefix: str, offset: int = 0, limit: int = 100) -> builtins.list[Job]:
        """Jobs whose name starts with ``prefix``, newest first."""
        return await asyncio.to_thread(self._list, prefix, offset, limit)

    async def glob(self, pattern: str, offset: int = 0, limit: int = 100) -> builtins.list[Job]:
        """Jobs whose name matches the SQLite GLOB ``pattern``, newest first."""
        return await asyncio.to_thread(self._glob, pattern, offset, limit)

    async def update(self, name: str, **values: object) -> None:
        """Set columns of a job (``state``, ``rows_total``, ``error``, ``response``, ...)."""
        await asyncio.to_thread(self._update, name, **values)

    async def request_cancel(self, name: str) -> str | None:
        """Mark a QUEUED or RUNNING job CANCELLING; the job's state after, None if unknown."""
        return await asyncio.to_thread(self._request_cancel, name)

    async def delete(self, name: str) -> None:
        """Forget a job and its results."""
        await asyncio.to_thread(self._delete, name)

    async def claim(self, stale_after: float) -> builtins.list[str]:
        """Names of the orphaned active jobs now owned here."""
        return await asyncio.to_thread(self._claim, stale_after)

    async def beat(self, names: Sequence[str]) -> dict[str, str]:
        """Heartbeat for the jobs run here; returns the states of those still owned here."""
        return await asyncio.to_thread(self._beat, list(names))

    async def add_rows(self, name: str, rows: Sequence[tuple[int, bool, str]]) -> None:
        """Store ``(row index, failed, result JSON)`` results; rows already stored are kept."""
        await asyncio.to_thread(self._add_rows, name, list(rows))

    async def done_rows(self, name: str) -> set[int]:
        """Indices of the rows that have a stored result."""
        return await asyncio.to_thread(self._done_rows, name)

    async def results(self, name: str) -> builtins.list[str]:
        """Every stored result JSON, by row index."""
        return await asyncio.to_thread(self._results, name)
