"""A SQLite file that evald keeps state in (dataset jobs, registered metrics)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


class SqliteFile:
    """``path``, created with ``schema`` on first use; :meth:`transaction` opens a connection.

    A connection per transaction keeps callers free to run in any worker thread.
    """

    def __init__(
        self,
        path: Path,
        schema: Sequence[str],
        *,
        timeout: float = 10,
        wal: bool = False,
        columns: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        self.path = path
        self.schema = tuple(schema)
        self.columns = tuple(columns)
        """``(table, column, definition)`` added to a file made before the column existed."""
        self.timeout = timeout
        self.wal = wal
        self._ready = False

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one transaction: committed on success, rolled back on error."""
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=self.timeout)
        try:
            if self.wal:
                # Survives a killed process (not a power cut) at a fraction of FULL's cost.
                connection.execute("PRAGMA synchronous=NORMAL")
            if not self._ready:
                if self.wal:
                    connection.execute("PRAGMA journal_mode=WAL")
                for statement in self.schema:
                    connection.execute(statement)
                for table, column, definition in self.columns:
                    present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
                    if column not in present:
                        connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
                self._ready = True
            with connection:  # one transaction
                yield connection
        finally:
            connection.close()
