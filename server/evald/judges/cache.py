"""A persistent, content-addressed cache of judge answers in SQLite.

The key is a SHA-256 over everything that determines an answer: backend, endpoint, model,
system instruction, prompt, media (by content hash), response schema, generation parameters
and the sample index (so the
``n`` samples of one request stay ``n`` distinct answers). Only answers that parsed are stored.
SQLite work runs in a worker thread so the event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from evald.judges.base import JudgeRequest

SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_answers (
    key TEXT PRIMARY KEY,
    answer TEXT NOT NULL,
    created REAL NOT NULL
)
"""


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
    """Answers by key, in one SQLite file shared by every request of the server."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
            conn.execute(SCHEMA)
            conn.commit()
            self._conn = conn
        return self._conn

    def _get(self, key: str) -> str | None:
        with self._lock:
            row = (
                self._connect()
                .execute("SELECT answer FROM judge_answers WHERE key = ?", (key,))
                .fetchone()
            )
        return None if row is None else str(row[0])

    def _put(self, key: str, answer: str) -> None:
        with self._lock:
            conn = self._connect()
            conn.execute(
                "INSERT OR REPLACE INTO judge_answers (key, answer, created) VALUES (?, ?, ?)",
                (key, answer, time.time()),
            )
            conn.commit()

    async def get(self, key: str) -> str | None:
        """The stored answer for ``key``, or None."""
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, answer: str) -> None:
        """Store ``answer`` under ``key`` (replacing any older one)."""
        await asyncio.to_thread(self._put, key, answer)

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
