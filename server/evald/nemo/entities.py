"""NeMo Evaluator's stored entities (configs, targets, results) in one SQLite file (or in the
shared PostgreSQL database with ``database_url``).

Each entity is its JSON body plus the fields the service owns: ``id`` (``<prefix>-`` and a
base58 UUID4, as NeMo makes them), ``namespace`` (``default`` unless given), ``name`` (the id
unless given, unique in its namespace and kind), ``created_at`` and ``updated_at``. Every call
opens its own connection off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evald.database import Database, IntegrityError, Schema, Step, sqlite
from evald.errors import AlreadyExists, NotFound

FILE = "nemo.sqlite3"
SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS entities (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (kind, id),
        UNIQUE (kind, namespace, name)
    )
    """,
)
TABLES = Schema(
    "nemo",
    FILE,
    # 1: the table as it was before versions (the same text suits both dialects).
    (Step(SCHEMA, SCHEMA),),
)
"""The entity store's tables and their migrations (add a :class:`Step` to change them)."""
DEFAULT_NAMESPACE = "default"
PREFIXES = {"config": "eval-config", "target": "eval-target", "result": "evaluation_result"}
"""Id prefix of each kind (a job's is ``eval``)."""
SERVICE_FIELDS = ("id", "created_at", "updated_at")
_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def new_id(prefix: str) -> str:
    """``<prefix>-`` and a base58 UUID4, NeMo's id shape."""
    number = uuid.uuid4().int
    digits = ""
    while number:
        number, rest = divmod(number, 58)
        digits = _ALPHABET[rest] + digits
    return f"{prefix}-{digits}"


def now() -> str:
    """An ISO 8601 timestamp, as NeMo writes them."""
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class Page:
    """One page of a listing, with the total."""

    items: list[dict[str, Any]]
    total: int


class Entities:
    """The configs, targets and results of one server, in ``database`` (or the SQLite file at
    that path)."""

    def __init__(self, database: Path | Database) -> None:
        self.database = database if isinstance(database, Database) else sqlite(database, TABLES)
        self._connect = self.database.transaction

    def _create(self, kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
        entity = dict(body)
        entity["id"] = new_id(PREFIXES[kind])
        entity["namespace"] = entity.get("namespace") or DEFAULT_NAMESPACE
        entity["name"] = entity.get("name") or entity["id"]
        entity["created_at"] = entity["updated_at"] = now()
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT INTO entities (kind, id, namespace, name, body, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (kind, entity["id"], entity["namespace"], entity["name"],
                     json.dumps(entity), entity["created_at"]),
                )  # fmt: skip
        except IntegrityError:
            raise AlreadyExists(
                f"a {kind} named '{entity['namespace']}/{entity['name']}' exists already"
            ) from None
        return entity

    def _get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        with self._connect() as db:
            row = db.execute(
                "SELECT body FROM entities WHERE kind = ? AND namespace = ? AND name = ?",
                (kind, namespace, name),
            ).fetchone()
        if row is None:
            raise NotFound(f"{kind} '{namespace}/{name}' not found")
        found: dict[str, Any] = json.loads(row[0])
        return found

    def _by_id(self, kind: str, entity_id: str) -> dict[str, Any]:
        with self._connect() as db:
            row = db.execute(
                "SELECT body FROM entities WHERE kind = ? AND id = ?", (kind, entity_id)
            ).fetchone()
        if row is None:
            raise NotFound(f"{kind} '{entity_id}' not found")
        found: dict[str, Any] = json.loads(row[0])
        return found

    def _update(
        self, kind: str, namespace: str, name: str, changes: Mapping[str, Any]
    ) -> dict[str, Any]:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, body FROM entities WHERE kind = ? AND namespace = ? AND name = ?",
                (kind, namespace, name),
            ).fetchone()
            if row is None:
                raise NotFound(f"{kind} '{namespace}/{name}' not found")
            entity = json.loads(row[1])
            entity.update({k: v for k, v in changes.items() if k not in SERVICE_FIELDS})
            entity["updated_at"] = now()
            try:
                db.execute(
                    "UPDATE entities SET namespace = ?, name = ?, body = ? "
                    "WHERE kind = ? AND id = ?",
                    (entity["namespace"], entity["name"], json.dumps(entity), kind, row[0]),
                )
            except IntegrityError:
                raise AlreadyExists(
                    f"a {kind} named '{entity['namespace']}/{entity['name']}' exists already"
                ) from None
        updated: dict[str, Any] = entity
        return updated

    def _delete(self, kind: str, where: str, values: tuple[str, ...]) -> dict[str, Any]:
        with self._connect() as db:
            row = db.execute(
                f"SELECT id FROM entities WHERE kind = ? AND {where}", (kind, *values)
            ).fetchone()
            if row is None:
                raise NotFound(f"{kind} '{'/'.join(values)}' not found")
            db.execute("DELETE FROM entities WHERE kind = ? AND id = ?", (kind, row[0]))
        return {"id": row[0], "deleted_at": now(), "message": f"{kind} deleted"}

    def _list(
        self, kind: str, filters: Mapping[str, str], newest_first: bool, offset: int, limit: int
    ) -> Page:
        where, values = "kind = ?", [kind]
        for key in ("namespace", "name"):
            if key in filters:
                where += f" AND {key} = ?"
                values.append(filters[key])
        order = "DESC" if newest_first else "ASC"
        with self._connect() as db:
            (total,) = db.execute(f"SELECT count(*) FROM entities WHERE {where}", values).fetchone()
            rows = db.execute(
                f"SELECT body FROM entities WHERE {where} ORDER BY created_at {order}, id "
                "LIMIT ? OFFSET ?",
                (*values, limit, offset),
            ).fetchall()
        return Page([json.loads(body) for (body,) in rows], int(total))

    def _put(self, kind: str, entity: Mapping[str, Any]) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO entities (kind, id, namespace, name, body, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET "
                "namespace = excluded.namespace, name = excluded.name, body = excluded.body, "
                "created_at = excluded.created_at",
                (kind, entity["id"], entity["namespace"], entity["name"], json.dumps(entity),
                 entity["created_at"]),
            )  # fmt: skip

    async def create(self, kind: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Store a new entity; AlreadyExists if its namespace and name are taken."""
        return await asyncio.to_thread(self._create, kind, body)

    async def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        """The entity ``namespace/name``; NotFound otherwise."""
        return await asyncio.to_thread(self._get, kind, namespace, name)

    async def by_id(self, kind: str, entity_id: str) -> dict[str, Any]:
        """The entity with id ``entity_id``; NotFound otherwise."""
        return await asyncio.to_thread(self._by_id, kind, entity_id)

    async def update(
        self, kind: str, namespace: str, name: str, changes: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Merge ``changes`` into the entity's top-level fields (PATCH)."""
        return await asyncio.to_thread(self._update, kind, namespace, name, changes)

    async def delete(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        """Remove ``namespace/name``; NeMo's ``{id, deleted_at, message}``."""
        return await asyncio.to_thread(
            self._delete, kind, "namespace = ? AND name = ?", (namespace, name)
        )

    async def delete_id(self, kind: str, entity_id: str) -> dict[str, Any]:
        """Remove the entity with id ``entity_id``."""
        return await asyncio.to_thread(self._delete, kind, "id = ?", (entity_id,))

    async def list(
        self,
        kind: str,
        filters: Mapping[str, str],
        *,
        newest_first: bool = True,
        offset: int = 0,
        limit: int = 10,
    ) -> Page:
        """A page of entities (``filters``: ``namespace`` and ``name`` match exactly)."""
        return await asyncio.to_thread(self._list, kind, filters, newest_first, offset, limit)

    async def put(self, kind: str, entity: Mapping[str, Any]) -> None:
        """Store ``entity`` as it is (a job's result, written by the service)."""
        await asyncio.to_thread(self._put, kind, entity)
