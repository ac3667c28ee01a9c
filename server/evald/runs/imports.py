"""Imported runs: ``evald evaluate --output DIR`` directories (``results.jsonl`` and
``aggregation.json``) kept in ``runs.sqlite3`` in the data dir, or in the shared PostgreSQL
database (``database_url``): plain SQL both run.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evald.database import Database, Schema, Step, sqlite
from evald.errors import InvalidArgument
from evald.jobs.outputs import AGGREGATION_FILE, RESULTS_FILE
from evald.runs.model import Row, metric_names, row_of

DB_FILE = "runs.sqlite3"
ID_PREFIX = "imp-"
MAX_IMPORT_BYTES = 32 * 1024 * 1024
"""Largest ``results.jsonl`` (and ``aggregation.json``) accepted."""
MAX_NAME = 200
SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS imported_runs (
        id VARCHAR(64) PRIMARY KEY,
        name VARCHAR(200) NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        rows_total INTEGER NOT NULL,
        metrics TEXT NOT NULL,
        aggregation TEXT
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS imported_rows (
        run VARCHAR(64) NOT NULL,
        row_index INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (run, row_index)
    )
    """,
)
TABLES = Schema("runs", DB_FILE, (Step(SCHEMA, SCHEMA),))
"""The imported runs' tables and their migrations (add a :class:`Step` to change them)."""


@dataclass(frozen=True)
class Imported:
    """One imported run (without its rows)."""

    id: str
    name: str
    created: float
    rows_total: int
    metrics: list[str]
    aggregation: dict[str, Any] | None


@dataclass(frozen=True)
class Parsed:
    """An import checked and ready to store."""

    name: str
    lines: list[str]
    metrics: list[str]
    aggregation: dict[str, Any] | None


def parse(name: str, results: str, aggregation: str | None) -> Parsed:
    """Check the two files' texts; raises InvalidArgument naming the file and line."""
    if len(results.encode()) > MAX_IMPORT_BYTES:
        raise InvalidArgument(RESULTS_FILE, f"larger than {MAX_IMPORT_BYTES} bytes")
    name = name.strip() or "imported run"
    if len(name) > MAX_NAME:
        raise InvalidArgument("name", f"at most {MAX_NAME} characters")
    lines = []
    rows: list[Row] = []
    for number, line in enumerate(results.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise InvalidArgument(f"{RESULTS_FILE} line {number}", f"not JSON: {exc}") from None
        if not isinstance(record, dict):
            raise InvalidArgument(f"{RESULTS_FILE} line {number}", "not a JSON object")
        try:
            rows.append(row_of(record, len(rows)))
        except (ValueError, TypeError, AttributeError) as exc:
            raise InvalidArgument(f"{RESULTS_FILE} line {number}", str(exc)) from None
        lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    if not rows:
        raise InvalidArgument(RESULTS_FILE, "holds no result rows")
    indices = [row.index for row in rows]
    if sorted(indices) != list(range(len(rows))):
        raise InvalidArgument(RESULTS_FILE, "the rows' indices are not 0..n-1, each once")
    ordered = [line for _, line in sorted(zip(indices, lines, strict=True))]
    summary = None
    if aggregation is not None and aggregation.strip():
        try:
            summary = json.loads(aggregation)
        except ValueError as exc:
            raise InvalidArgument(AGGREGATION_FILE, f"not JSON: {exc}") from None
        if not isinstance(summary, dict):
            raise InvalidArgument(AGGREGATION_FILE, "not a JSON object")
    return Parsed(name, ordered, metric_names(rows), summary)


def read_directory(directory: Path) -> tuple[str, str | None]:
    """The texts of ``results.jsonl`` and (if present) ``aggregation.json`` in ``directory``."""
    results = directory / RESULTS_FILE
    if not results.is_file():
        raise InvalidArgument(str(directory), f"holds no {RESULTS_FILE}")
    if results.stat().st_size > MAX_IMPORT_BYTES:
        raise InvalidArgument(str(results), f"larger than {MAX_IMPORT_BYTES} bytes")
    aggregation = directory / AGGREGATION_FILE
    found = aggregation.read_text(encoding="utf-8") if aggregation.is_file() else None
    return results.read_text(encoding="utf-8"), found


class ImportStore:
    """Imported runs in ``database`` (or the SQLite file at that path, created on first use);
    every method is async (work in a thread)."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self._connect = self.database.transaction

    def _add(self, parsed: Parsed) -> Imported:
        run = Imported(
            ID_PREFIX + secrets.token_hex(8),
            parsed.name,
            time.time(),
            len(parsed.lines),
            parsed.metrics,
            parsed.aggregation,
        )
        with self._connect() as db:
            db.execute(
                "INSERT INTO imported_runs (id, name, created, rows_total, metrics, aggregation) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    run.id,
                    run.name,
                    run.created,
                    run.rows_total,
                    json.dumps(run.metrics),
                    None if run.aggregation is None else json.dumps(run.aggregation),
                ),
            )
            db.executemany(
                "INSERT INTO imported_rows (run, row_index, record) VALUES (?, ?, ?)",
                [(run.id, i, line) for i, line in enumerate(parsed.lines)],
            )
        return run

    def _list(self) -> builtins.list[Imported]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, name, created, rows_total, metrics, aggregation FROM imported_runs "
                "ORDER BY created DESC, id"
            ).fetchall()
        return [_imported(row) for row in rows]

    def _get(self, run_id: str) -> Imported | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, name, created, rows_total, metrics, aggregation FROM imported_runs "
                "WHERE id = ?",
                (run_id,),
            ).fetchone()
        return None if row is None else _imported(row)

    def _records(self, run_id: str) -> builtins.list[str]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT record FROM imported_rows WHERE run = ? ORDER BY row_index", (run_id,)
            ).fetchall()
        return [record for (record,) in rows]

    def _delete(self, run_id: str) -> bool:
        with self._connect() as db:
            db.execute("DELETE FROM imported_rows WHERE run = ?", (run_id,))
            return db.execute("DELETE FROM imported_runs WHERE id = ?", (run_id,)).rowcount > 0

    async def add(self, parsed: Parsed) -> Imported:
        """Store a parsed import as a new run."""
        return await asyncio.to_thread(self._add, parsed)

    async def list(self) -> builtins.list[Imported]:
        """Every imported run, newest first."""
        return await asyncio.to_thread(self._list)

    async def get(self, run_id: str) -> Imported | None:
        """The imported run ``run_id``, or None."""
        return await asyncio.to_thread(self._get, run_id)

    async def records(self, run_id: str) -> builtins.list[str]:
        """The run's result records (JSON lines), by row."""
        return await asyncio.to_thread(self._records, run_id)

    async def delete(self, run_id: str) -> bool:
        """Forget an imported run; whether it existed."""
        return await asyncio.to_thread(self._delete, run_id)


def _imported(row: tuple[Any, ...]) -> Imported:
    run_id, name, created, total, metrics, aggregation = row
    return Imported(
        run_id,
        name,
        created,
        total,
        json.loads(metrics),
        None if aggregation is None else json.loads(aggregation),
    )
