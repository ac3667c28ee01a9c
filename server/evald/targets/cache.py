"""A persistent, content-addressed cache of model outputs in SQLite.

The key is a SHA-256 over everything that determines an output: the endpoint's format, base
URL and model, and the generation (kind, prompt, messages, parameters); never the API key, so a
rotated key keeps its outputs. A resumed job finds every row it already generated here and
calls the model only for the rest. SQLite work runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from evald.database import Database, Schema, Step, sqlite
from evald.targets.base import Endpoint, Generation, Output, plain

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS target_outputs (
        key TEXT PRIMARY KEY,
        output TEXT NOT NULL,
        created REAL NOT NULL
    )
    """,
)
TABLES = Schema(
    "targets",
    "targets.sqlite3",
    # 1: the table as it was before versions.
    (Step(SCHEMA, tuple(s.replace("REAL", "DOUBLE PRECISION") for s in SCHEMA)),),
    timeout=10,
)
"""The target cache's tables and their migrations (add a :class:`Step` to change them)."""


def cache_key(endpoint: Endpoint, generation: Generation, scope: str = "") -> str:
    """The content address of one generation on one endpoint, within ``scope`` (a job: its
    own outputs only, so a new job at a temperature above 0 samples again)."""
    material: dict[str, Any] = {
        "scope": scope,
        "format": endpoint.format,
        "base_url": endpoint.base_url,
        "model_id": endpoint.model_id,
        "kind": generation.kind,
        "prompt": generation.prompt,
        "messages": plain(generation.messages),
        "params": plain(generation.params),
    }
    # default=repr: a parameter JSON cannot carry still gets a stable key (the request fails).
    blob = json.dumps(
        material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class TargetCache:
    """Outputs by key, in ``database`` (or the SQLite file at that path; WAL: readers never
    wait for the writer)."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)

    def _get(self, key: str) -> str | None:
        with self.database.transaction() as conn:
            row = conn.execute("SELECT output FROM target_outputs WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _put(self, key: str, output: str) -> None:
        with self.database.transaction() as conn:
            conn.execute(
                "INSERT INTO target_outputs (key, output, created) VALUES (?, ?, ?) ON CONFLICT "
                "(key) DO UPDATE SET output = excluded.output, created = excluded.created",
                (key, output, time.time()),
            )

    async def get(self, key: str) -> Output | None:
        """The stored output for ``key`` (``cached=True``), or None."""
        stored = await asyncio.to_thread(self._get, key)
        if stored is None:
            return None
        try:
            return Output.from_json(stored, cached=True)
        except (ValueError, KeyError, TypeError):
            return None  # unreadable (another writer's format): generate again

    async def put(self, key: str, output: Output) -> None:
        """Store ``output`` under ``key`` (replacing any older one)."""
        await asyncio.to_thread(self._put, key, output.to_json())
