"""Where evald's durable stores keep their tables: SQLite files in the data dir (the default) or
one shared PostgreSQL database (``database_url``), so several server processes share them.

A store declares a :class:`Schema`: its name, its SQLite file and its numbered migration steps,
each with the statements of both dialects. :meth:`Backend.open` gives the store a
:class:`Database`, whose :meth:`Database.transaction` yields a :class:`Connection` with the one
small API both backends share: ``execute(sql, params)`` and ``executemany(sql, rows)``, SQL
written with ``?`` placeholders (PostgreSQL's ``%s`` is substituted), and
:class:`IntegrityError` for a broken unique key. Where the SQL itself differs (``GLOB``,
``FOR UPDATE SKIP LOCKED``), the store checks :attr:`Database.dialect`. Upserts are written
``INSERT ... ON CONFLICT`` which both dialects understand.

Migrations run once per database handle, before its first transaction (and at start-up, see
:meth:`Backend.prepare`): the ``schema_version`` table holds each store's version, and the steps
above it run in one transaction, under ``BEGIN IMMEDIATE`` in SQLite and a transaction-scoped
advisory lock in PostgreSQL, so replicas starting together never race. Step 1 of every store
is its schema as it was before versions existed (``CREATE TABLE IF NOT EXISTS`` and columns added
when missing), so a file made by an older evald opens and migrates.

Every call blocks: stores run them in a worker thread (``asyncio.to_thread``), off the event loop.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

SQLITE, POSTGRES = "sqlite", "postgres"
ADVISORY_LOCK = 0x65_76_61_6C_64  # "evald": the one lock every replica's migrations take
VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version (store TEXT PRIMARY KEY, version INTEGER NOT NULL)"
)


class IntegrityError(Exception):
    """A unique key or constraint refused a write (either backend)."""


class Cursor(Protocol):
    """What ``execute`` returns (sqlite3's and psycopg's cursors both are one)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """One transaction's connection: SQL with ``?`` placeholders."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]], /) -> Any: ...


Statement = str | Callable[[Connection], None]
"""One migration statement: SQL text, or a function of the connection (e.g. add a column only
where it is missing)."""


@dataclass(frozen=True)
class Step:
    """One numbered migration (its number is its position in :attr:`Schema.steps`, from 1)."""

    sqlite: tuple[Statement, ...]
    postgres: tuple[Statement, ...]


@dataclass(frozen=True)
class Schema:
    """A store's tables: ``name`` (its row in ``schema_version``), the SQLite ``file`` it lives in
    without ``database_url``, and its migration ``steps``, applied in order."""

    name: str
    file: str
    steps: tuple[Step, ...]
    wal: bool = True
    """SQLite: write-ahead log, readers never wait for the writer."""
    timeout: float = 30
    """SQLite: seconds a writer waits for another one."""

    @property
    def version(self) -> int:
        """The version the steps bring a database to."""
        return len(self.steps)


def add_column(table: str, column: str, definition: str) -> Callable[[Connection], None]:
    """A SQLite statement adding ``column`` to ``table`` unless a file already has it (files made
    before the column existed, and before versions existed)."""

    def add(connection: Connection) -> None:
        present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})").fetchall()}
        if column not in present:
            connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    return add


def mask_url(url: str) -> str:
    """``url`` with its password replaced by ``***``: the only form a database URL is logged
    or shown in."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable database URL>"
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def glob_regex(pattern: str) -> str:
    """The POSIX regular expression (PostgreSQL ``~``) matching what the SQLite GLOB ``pattern``
    matches: ``*``, ``?`` and ``[...]`` sets; everything else literally."""
    out, i = ["^"], 0
    while i < len(pattern):
        char = pattern[i]
        end = pattern.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif end != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out) + "$"


class Database(ABC):
    """One store's tables in one backend; :meth:`transaction` opens a connection."""

    dialect: str

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._ready = False
        self._lock = threading.Lock()

    def transaction(self) -> AbstractContextManager[Connection]:
        """A connection inside one transaction: committed on success, rolled back on error."""
        if not self._ready:
            self.migrate()
        return self._transaction()

    def migrate(self) -> int:
        """Bring the tables to the schema's version (once per handle); the version before."""
        with self._lock:
            if self._ready:
                return self.schema.version
            before = self._migrate()
            self._ready = True
            return before

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _migrate(self) -> int: ...

    def _apply(self, connection: Connection, steps: Sequence[Sequence[Statement]]) -> int:
        """Inside the migration's transaction: run the steps above the stored version."""
        connection.execute(VERSION_TABLE)
        row = connection.execute(
            "SELECT version FROM schema_version WHERE store = ?", (self.schema.name,)
        ).fetchone()
        before = 0 if row is None else int(row[0])
        if before > len(steps):
            raise RuntimeError(
                f"the {self.schema.name} tables are at version {before}, newer than this evald "
                f"knows ({len(steps)}): upgrade evald"
            )
        for statements in steps[before:]:
            for statement in statements:
                if isinstance(statement, str):
                    connection.execute(statement)
                else:
                    statement(connection)
        if before < len(steps):
            connection.execute(
                "INSERT INTO schema_version (store, version) VALUES (?, ?) "
                "ON CONFLICT (store) DO UPDATE SET version = excluded.version",
                (self.schema.name, len(steps)),
            )
        return before


class SqliteDatabase(Database):
    """A store's own SQLite file (a connection per transaction: callers use any thread)."""

    dialect = SQLITE

    def __init__(self, path: Path, schema: Schema) -> None:
        super().__init__(schema)
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self.schema.timeout)
        if self.schema.wal:
            # Survives a killed process (not a power cut) at a fraction of FULL's cost.
            connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def _migrate(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)  # the first use makes the file
        connection = self._connect()
        try:
            connection.isolation_level = None  # the transaction below is explicit
            if self.schema.wal:
                connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("BEGIN IMMEDIATE")  # one migrating process at a time
            try:
                before = self._apply(connection, [s.sqlite for s in self.schema.steps])
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return before
        finally:
            connection.close()

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        connection = self._connect()
        try:
            with connection:  # one transaction
                yield _SqliteConnection(connection)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc
        finally:
            connection.close()


class _SqliteConnection:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Cursor:
        try:
            return self._connection.execute(sql, parameters)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> Any:
        try:
            return self._connection.executemany(sql, parameters)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc


class PostgresDatabase(Database):
    """A store's tables in the shared PostgreSQL database (connections from the pool)."""

    dialect = POSTGRES

    def __init__(self, pool: Any, schema: Schema) -> None:
        super().__init__(schema)
        self.pool = pool

    def _migrate(self) -> int:
        with self._transaction() as connection:
            # Held until this transaction ends: a replica starting beside this one waits, then
            # finds the version already raised.
            connection.execute("SELECT pg_advisory_xact_lock(?)", (ADVISORY_LOCK,))
            return self._apply(connection, [s.postgres for s in self.schema.steps])

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        import psycopg

        try:
            # The pool's block is one transaction: committed on success, rolled back on error.
            with self.pool.connection() as connection:
                yield _PostgresConnection(connection)
        except psycopg.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc


class _PostgresConnection:
    """psycopg's connection with ``?`` placeholders."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Cursor:
        import psycopg

        try:
            cursor: Cursor = self._connection.execute(self._sql(sql), parameters)
        except psycopg.IntegrityError as exc:
            # The transaction is over: the caller must leave it (raise), as with SQLite.
            raise IntegrityError(str(exc)) from exc
        return cursor

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> Any:
        with self._connection.cursor() as cursor:
            cursor.executemany(self._sql(sql), parameters)


@dataclass
class Backend:
    """Where every store of one server lives: SQLite files under ``data_dir``, or the PostgreSQL
    database at ``url`` (one pool of at most ``pool_size`` connections shared by the stores)."""

    data_dir: Path
    url: str | None = None
    pool_size: int = 10
    _pool: Any = field(default=None, init=False, repr=False)
    _opened: list[Database] = field(default_factory=list, init=False, repr=False)

    @property
    def shared(self) -> bool:
        """Whether the stores live in PostgreSQL (shared by every replica using the URL)."""
        return self.url is not None

    def describe(self) -> str:
        """For the logs: the backend, and its URL with the password masked."""
        return f"postgresql {mask_url(self.url)}" if self.url else f"sqlite in {self.data_dir}"

    def open(self, schema: Schema, path: Path | None = None) -> Database:
        """The tables of ``schema``: its SQLite file in the data dir (or at ``path``), or the
        shared PostgreSQL database. Migrated before first use."""
        database: Database
        if self.url is None:
            database = SqliteDatabase(path or self.data_dir / schema.file, schema)
        else:
            database = PostgresDatabase(self.pool(), schema)
        self._opened.append(database)
        return database

    def pool(self) -> Any:
        """The PostgreSQL connection pool (made on first use; connects in the background)."""
        if self._pool is None:
            from psycopg_pool import ConnectionPool

            assert self.url is not None
            self._pool = ConnectionPool(
                self.url, min_size=1, max_size=self.pool_size, open=True, name="evald"
            )
        return self._pool

    def prepare(self) -> None:
        """Migrate every store opened so far (at start-up: a database that cannot be reached
        or migrated fails the start, not the first call)."""
        for database in self._opened:
            database.migrate()

    def close(self) -> None:
        """Close the PostgreSQL pool (SQLite has nothing open between transactions)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def sqlite(path: Path, schema: Schema) -> Database:
    """``schema``'s tables in the SQLite file ``path`` (a store made without a backend)."""
    return SqliteDatabase(path, schema)
