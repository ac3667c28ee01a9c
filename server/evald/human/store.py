"""Human-evaluation tasks and ratings in the SQLite file ``<data dir>/human.sqlite3``, or in the
shared PostgreSQL database (``database_url``).

The only module that speaks SQL for human evaluation, in portable SQL (``INSERT ... ON CONFLICT
... DO UPDATE`` is both SQLite's and PostgreSQL's upsert).
Every write is its own transaction, committed before the call returns: a rater who stops loses
nothing. The async methods run the database work in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evald.database import Database, Schema, Step, sqlite

FILE = "human.sqlite3"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS human_tasks ("
    " id TEXT PRIMARY KEY, spec TEXT NOT NULL, rows_total INTEGER NOT NULL,"
    " create_time REAL NOT NULL, creator TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS human_rows ("
    " task TEXT NOT NULL, row_index INTEGER NOT NULL, data TEXT NOT NULL,"
    " PRIMARY KEY (task, row_index))",
    "CREATE TABLE IF NOT EXISTS human_ratings ("
    " task TEXT NOT NULL, row_index INTEGER NOT NULL, rater TEXT NOT NULL, item TEXT NOT NULL,"
    " value TEXT NOT NULL, update_time REAL NOT NULL,"
    " PRIMARY KEY (task, row_index, rater, item))",
)
TABLES = Schema(
    "human",
    FILE,
    (Step(SCHEMA, tuple(s.replace(" REAL ", " DOUBLE PRECISION ") for s in SCHEMA)),),
)
"""Human evaluation's tables and their migrations (add a :class:`Step` to change them)."""


@dataclass(frozen=True)
class StoredTask:
    """One task: its id, its specification (JSON object), row count, creation time, creator."""

    id: str
    spec: dict[str, Any]
    rows_total: int
    create_time: float
    creator: str


@dataclass(frozen=True)
class Rating:
    """One stored rating."""

    task: str
    row: int
    rater: str
    item: str
    value: Any
    update_time: float

    def json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "row": self.row,
            "rater": self.rater,
            "item": self.item,
            "value": self.value,
            "update_time": self.update_time,
        }


def _task(row: tuple[Any, ...]) -> StoredTask:
    return StoredTask(str(row[0]), json.loads(row[1]), int(row[2]), float(row[3]), str(row[4]))


def _rating(row: tuple[Any, ...]) -> Rating:
    return Rating(
        str(row[0]), int(row[1]), str(row[2]), str(row[3]), json.loads(row[4]), float(row[5])
    )


_RATING = "task, row_index, rater, item, value, update_time"


class HumanStore:
    """Tasks, their rows and their ratings, in ``database`` (or the SQLite file at that path,
    created on first use)."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self._connect = self.database.transaction

    # Synchronous bodies, run in a thread by the async methods below.

    def _create(self, task: StoredTask, rows: list[dict[str, Any]]) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO human_tasks (id, spec, rows_total, create_time, creator) "
                "VALUES (?, ?, ?, ?, ?)",
                (task.id, json.dumps(task.spec), task.rows_total, task.create_time, task.creator),
            )
            db.executemany(
                "INSERT INTO human_rows (task, row_index, data) VALUES (?, ?, ?)",
                [(task.id, i, json.dumps(row, ensure_ascii=False)) for i, row in enumerate(rows)],
            )

    def _get(self, task: str) -> StoredTask | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, spec, rows_total, create_time, creator FROM human_tasks WHERE id = ?",
                (task,),
            ).fetchone()
        return None if row is None else _task(row)

    def _list(self) -> list[StoredTask]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, spec, rows_total, create_time, creator FROM human_tasks "
                "ORDER BY create_time DESC, id"
            ).fetchall()
        return [_task(r) for r in rows]

    def _delete(self, task: str) -> bool:
        with self._connect() as db:
            db.execute("DELETE FROM human_ratings WHERE task = ?", (task,))
            db.execute("DELETE FROM human_rows WHERE task = ?", (task,))
            return db.execute("DELETE FROM human_tasks WHERE id = ?", (task,)).rowcount > 0

    def _row(self, task: str, index: int) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT data FROM human_rows WHERE task = ? AND row_index = ?", (task, index)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def _rate(self, task: str, index: int, rater: str, item: str, value: Any) -> Rating:
        now = time.time()
        with self._connect() as db:
            db.execute(
                f"INSERT INTO human_ratings ({_RATING}) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (task, row_index, rater, item) DO UPDATE SET "
                "value = excluded.value, update_time = excluded.update_time",
                (task, index, rater, item, json.dumps(value), now),
            )
        return Rating(task, index, rater, item, value, now)

    def _ratings(
        self,
        task: str,
        rater: str | None = None,
        row: int | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> list[Rating]:
        where, args = "task = ?", builtins.list[object]([task])
        if rater is not None:
            where, args = where + " AND rater = ?", [*args, rater]
        if row is not None:
            where, args = where + " AND row_index = ?", [*args, row]
        sql = f"SELECT {_RATING} FROM human_ratings WHERE {where} ORDER BY row_index, rater, item"
        if limit is not None:
            sql, args = sql + " LIMIT ? OFFSET ?", [*args, limit, offset]
        with self._connect() as db:
            rows = db.execute(sql, args).fetchall()
        return [_rating(r) for r in rows]

    def _count(self, task: str, rater: str | None) -> int:
        where, args = "task = ?", builtins.list[object]([task])
        if rater is not None:
            where, args = where + " AND rater = ?", [*args, rater]
        with self._connect() as db:
            row = db.execute(f"SELECT COUNT(*) FROM human_ratings WHERE {where}", args).fetchone()
        return int(row[0])

    # The async API.

    async def create(self, task: StoredTask, rows: list[dict[str, Any]]) -> None:
        """Store a new task and its rows (one transaction)."""
        await asyncio.to_thread(self._create, task, rows)

    async def get(self, task: str) -> StoredTask | None:
        """The task ``task``, or None."""
        return await asyncio.to_thread(self._get, task)

    async def list(self) -> builtins.list[StoredTask]:
        """Every task, newest first."""
        return await asyncio.to_thread(self._list)

    async def delete(self, task: str) -> bool:
        """Delete a task with its rows and ratings; whether it existed."""
        return await asyncio.to_thread(self._delete, task)

    async def row(self, task: str, index: int) -> dict[str, Any] | None:
        """Row ``index`` of ``task``, or None."""
        return await asyncio.to_thread(self._row, task, index)

    async def rate(self, task: str, index: int, rater: str, item: str, value: Any) -> Rating:
        """Store (or replace) one rating."""
        return await asyncio.to_thread(self._rate, task, index, rater, item, value)

    async def count(self, task: str, rater: str | None = None) -> int:
        """How many ratings ``task`` has (of ``rater``, if given)."""
        return await asyncio.to_thread(self._count, task, rater)

    async def ratings(
        self,
        task: str,
        rater: str | None = None,
        row: int | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> builtins.list[Rating]:
        """Ratings of ``task`` (optionally of one rater and/or row), by row, rater and item."""
        return await asyncio.to_thread(self._ratings, task, rater, row, offset, limit)
