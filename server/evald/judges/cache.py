"""A persistent, content-addressed cache of judge answers in SQLite.

The key is a SHA-256 over everything that determines an answer: backend, endpoint, model,
system instruction, prompt, media (by content hash), response schema, generation parameters
and the sample index (so the
``n`` samples of one request stay ``n`` distinct answers). Only answers that parsed are stored.
Database work runs in a worker thread so the event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from evald.database import Database, Schema, Step, sqlite
from evald.judges.base import JudgeRequest

SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_answers (
    key TEXT PRIMARY KEY,
    answer TEXT NOT NULL,
    created REAL NOT NULL
)
"""
TABLES = Schema(
    "judges",
    "judge_cache.sqlite3",  # the judge configuration names the SQLite file (``cache_path``)
    # 1: the table as it was before versions.
    (Step((SCHEMA,), (SCHEMA.replace("REAL", "DOUBLE PRECISION"),)),),
    timeout=10,
)
"""The judge cache's tables and their migrations (add a :class:`Step` to change them)."""


def cache_key(backend: str, endpoint: str, model: str, request: JudgeRequest, sample: int) -> str:
    """The content address of one judge call."""
    material: dict[str, Any] = {
        "backend": backend,
        "endpoint": endpoint,
        "model": model,
        "system": request.system_instruction or "",
        "prompt": request.prompt,
        "schema": request.response_schema,
        "params": request.params.as_dict(),
        "sample": sample,
    }
    if request.media:  # absent otherwise, so text-only keys stay what they were
        material["media"] = [[m.label, m.mime_type, m.digest()] for m in request.media]
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    """Answers by key, in ``database`` (or the SQLite file at that path) shared by every request
    of the server; with ``database_url``, by every replica."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)

    def _get(self, key: str) -> str | None:
        with self.database.transaction() as conn:
            row = conn.execute("SELECT answer FROM judge_answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _put(self, key: str, answer: str) -> None:
        with self.database.transaction() as conn:
            conn.execute(
                "INSERT INTO judge_answers (key, answer, created) VALUES (?, ?, ?) ON CONFLICT "
                "(key) DO UPDATE SET answer = excluded.answer, created = excluded.created",
                (key, answer, time.time()),
            )

    async def get(self, key: str) -> str | None:
        """The stored answer for ``key``, or None."""
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, answer: str) -> None:
        """Store ``answer`` under ``key`` (replacing any older one)."""
        await asyncio.to_thread(self._put, key, answer)

    def close(self) -> None:
        """Nothing stays open between calls (kept for the runtime's retirement)."""
