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

from evald.sqlite_file import SqliteFile
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
    """Outputs by key, in one SQLite file (WAL: readers never wait for the writer)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = SqliteFile(path, SCHEMA, wal=True)

    def _get(self, key: str) -> str | None:
        with self._file.transaction() as conn:
            row = conn.execute("SELECT output FROM target_outputs WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _put(self, key: str, output: str) -> None:
        with self._file.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO target_outputs (key, output, created) VALUES (?, ?, ?)",
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
