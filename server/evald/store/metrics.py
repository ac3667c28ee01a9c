"""Registered ``Metric`` definitions in one SQLite file, keyed by resource name.

Resource names look like Vertex AI's: ``projects/P/locations/L/evaluationMetrics/ID``. The
metric is stored as serialized ``google.cloud.aiplatform.v1beta1.Metric`` bytes. Each call
opens its own connection (sqlite3 connections must not cross threads), off the event loop.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

from evald.database import Database, Schema, Step, sqlite

FILE = "metrics.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluation_metrics (
    name TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    description TEXT NOT NULL,
    metric BLOB NOT NULL,
    create_time REAL NOT NULL
)
"""
TABLES = Schema(
    "metrics",
    FILE,
    # 1: the table as it was before versions.
    (Step((SCHEMA,), (SCHEMA.replace("BLOB", "BYTEA").replace("REAL", "DOUBLE PRECISION"),)),),
    wal=False,
    timeout=10,
)
"""The metric store's tables and their migrations (add a :class:`Step` to change them)."""


@dataclass(frozen=True)
class StoredMetric:
    """One registered definition."""

    name: str
    display_name: str
    description: str
    metric: bytes
    """A serialized v1beta1 ``Metric``."""
    create_time: float


class MetricStore:
    """The registered metrics of one server, in ``database`` (or the SQLite file at that path,
    created on first use)."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self._connect = self.database.transaction

    def _insert(self, item: StoredMetric) -> bool:
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO evaluation_metrics "
                "(name, display_name, description, metric, create_time) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (item.name, item.display_name, item.description, item.metric, item.create_time),
            )
        return cursor.rowcount > 0

    def _get(self, name: str) -> StoredMetric | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT name, display_name, description, metric, create_time "
                "FROM evaluation_metrics WHERE name = ?",
                (name,),
            ).fetchone()
        return None if row is None else StoredMetric(*row)

    def _list(self, prefix: str, after: str, limit: int) -> list[StoredMetric]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT name, display_name, description, metric, create_time "
                "FROM evaluation_metrics WHERE substr(name, 1, ?) = ? AND name > ? "
                "ORDER BY name LIMIT ?",
                (len(prefix), prefix, after, limit),
            ).fetchall()
        return [StoredMetric(*row) for row in rows]

    def _delete(self, name: str) -> bool:
        with self._connect() as db:
            cursor = db.execute("DELETE FROM evaluation_metrics WHERE name = ?", (name,))
        return cursor.rowcount > 0

    async def create(
        self, name: str, display_name: str, description: str, metric: bytes
    ) -> StoredMetric | None:
        """Store a new definition; None if ``name`` is already taken."""
        item = StoredMetric(name, display_name, description, metric, time.time())
        return item if await asyncio.to_thread(self._insert, item) else None

    async def get(self, name: str) -> StoredMetric | None:
        """The definition called ``name``, or None."""
        return await asyncio.to_thread(self._get, name)

    async def list(self, prefix: str, after: str = "", limit: int = 100) -> list[StoredMetric]:
        """Definitions whose name starts with ``prefix``, by name, after ``after``."""
        return await asyncio.to_thread(self._list, prefix, after, limit)

    async def delete(self, name: str) -> bool:
        """Remove ``name``; False if it did not exist."""
        return await asyncio.to_thread(self._delete, name)
