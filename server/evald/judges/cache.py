"""A persistent, content-addressed cache of judge answers in SQLite.

The key is a SHA-256 over everything that determines an answer: backend, endpoint, model,
system instruction, prompt, media (by content hash), response schema, generation parameters
and the sample index (so the
``n`` samples of one request stay ``n`` distinct answers). Only answers that parsed are stored.

Lookups and writes go to one thread of the cache's own, which takes whatever has queued up
since its last round into one transaction: with a thousand judge calls in flight, a round
serves hundreds of them. A transaction and a thread hop per call cost more CPU than the judge
call itself (1.1 ms per hit and 2.1 ms per missed and stored call, 1,000 in flight, against
0.75 ms for a call without the cache). The event loop never waits on the disk, and a cache
that cannot be read or written is logged and bypassed: a judge call never fails because of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import queue
import threading
import time
from collections.abc import Sequence
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


log = logging.getLogger(__name__)

ROUND = 512
"""Most lookups and writes one transaction takes."""

GATHER_SECONDS = 0.002
"""How long a round waits for more operations when the one before ended just now (the cache
is busy): fewer, larger transactions cost less CPU per call than many small ones (0.9-1.2
against 1.0-1.5 ms per stored judge call, 1,000 in flight). An idle cache does not wait."""

_Op = tuple[str, str | None, asyncio.AbstractEventLoop, "asyncio.Future[str | None]"]
"""A lookup (answer None) or a write of ``key``, and where its caller waits."""


class JudgeCache:
    """Answers by key, in ``database`` (or the SQLite file at that path) shared by every request
    of the server; with ``database_url``, by every replica. Usable from any event loop."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self._queue: queue.SimpleQueue[_Op | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        """Held to queue an operation and to decide that the thread ends, so none is left."""
        self._thread: threading.Thread | None = None
        self.rounds = 0
        """Transactions made (each serves every operation queued when it began)."""

    async def get(self, key: str) -> str | None:
        """The stored answer for ``key``, or None (also when the cache cannot be read)."""
        return await self._queued(key, None)

    async def put(self, key: str, answer: str) -> None:
        """Store ``answer`` under ``key`` (replacing any older one); a lookup made after this
        returns sees it. A write that fails is logged, not raised."""
        await self._queued(key, answer)

    def _queued(self, key: str, answer: str | None) -> asyncio.Future[str | None]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        with self._lock:
            self._queue.put((key, answer, loop, future))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="evald-judge-cache", daemon=True
                )
                self._thread.start()
        return future

    def _serve(self) -> None:
        ended = 0.0
        while True:
            ops: list[_Op] = []
            stop = False
            item = self._queue.get()
            if self._queue.empty() and time.monotonic() - ended < 5 * GATHER_SECONDS:
                time.sleep(GATHER_SECONDS)
            while True:
                if item is None:
                    stop = True
                else:
                    ops.append(item)
                if len(ops) >= ROUND:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if ops:
                _answer(ops, self._round(ops))
            ended = time.monotonic()
            if stop:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return

    def _round(self, ops: Sequence[_Op]) -> list[str | None]:
        """One transaction: the writes (the last of each key), then the lookups."""
        self.rounds += 1
        writes = {key: answer for key, answer, _, _ in ops if answer is not None}
        wanted = list(dict.fromkeys(key for key, answer, _, _ in ops if answer is None))
        found: dict[str, str] = {}
        try:
            with self.database.transaction() as conn:
                if writes:
                    now = time.time()
                    conn.executemany(
                        "INSERT INTO judge_answers (key, answer, created) VALUES (?, ?, ?) ON "
                        "CONFLICT (key) DO UPDATE SET answer = excluded.answer, "
                        "created = excluded.created",
                        [(key, answer, now) for key, answer in writes.items()],
                    )
                if wanted:
                    marks = ", ".join("?" * len(wanted))
                    rows = conn.execute(
                        f"SELECT key, answer FROM judge_answers WHERE key IN ({marks})", wanted
                    ).fetchall()
                    found = {str(key): str(answer) for key, answer in rows}
        except Exception:
            # A cache is an optimization: its failure must not fail (or lose) judge calls.
            log.warning(
                "judge cache unavailable: %d lookup(s) missed, %d answer(s) not stored",
                len(wanted),
                len(writes),
                exc_info=True,
            )
        return [found.get(key) if answer is None else None for key, answer, _, _ in ops]

    def close(self, wait: float = 0.0) -> None:
        """Let the thread end once what is queued is done (waiting up to ``wait`` seconds for
        it); later calls start it again."""
        with self._lock:
            thread = self._thread
            if thread is not None:
                self._queue.put(None)
        if thread is not None and wait > 0:
            thread.join(wait)


def _answer(ops: Sequence[_Op], values: Sequence[str | None]) -> None:
    """Give each caller its value, on its own event loop (one callback per loop)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[str | None], str | None]]]
    by_loop = {}
    for (_, _, loop, future), value in zip(ops, values, strict=True):
        by_loop.setdefault(loop, []).append((future, value))
    for loop, done in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits
            loop.call_soon_threadsafe(_resolve, done)


def _resolve(done: Sequence[tuple[asyncio.Future[str | None], str | None]]) -> None:
    for future, value in done:
        if not future.done():  # a caller that was cancelled is not told
            future.set_result(value)
