"""``evald serve --database-url`` refuses what it cannot use before anything starts: one line
naming the setting, the URL shown with its password masked, exit status 2."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from evald.app import App
from evald.cli import main
from evald.config import Settings

SECRET = "s3cret-db-password"
CLOSED = f"postgresql://evald:{SECRET}@127.0.0.1:1/evald"
"""A port nothing listens on."""

CASES = [
    ("driver missing", [CLOSED], True,
     ("--database-url (EVALD_DATABASE_URL)", "evald:***@127.0.0.1:1",
      "pip install 'evald[postgres]'")),
    ("database unreachable", [CLOSED], False,
     ("--database-url (EVALD_DATABASE_URL)", "evald:***@127.0.0.1:1", "cannot connect")),
    ("not a PostgreSQL URL", ["mysql://u:p@db/x"], False,
     ("database_url must start with postgresql://",)),
    ("pool size 0", [CLOSED, "--database-pool-size", "0"], False,
     ("database_pool_size must be at least 1",)),
    ("lease too short", [CLOSED, "--job-lease-seconds", "0.5"], False,
     ("job_lease_seconds must be at least 2",)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "no_driver", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_serve_refuses_a_database_it_cannot_use(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    no_driver: bool,
    expected: tuple[str, ...],
) -> None:
    for name in list(os.environ):
        if name.startswith("EVALD_"):
            monkeypatch.delenv(name)
    if no_driver:
        monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg: ImportError
    code = main(["serve", "--port", "0", "--data-dir", str(tmp_path), "--database-url", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("evald serve: ")
    for text in expected:
        assert text in err
    assert SECRET not in err


def test_tables_a_newer_evald_migrated_are_refused(tmp_path: Path, postgres_url: str) -> None:
    """Before the server listens (``evald serve`` prints the OSError's one line, exit 1)."""
    import psycopg

    with psycopg.connect(postgres_url) as db:
        db.execute("CREATE TABLE schema_version (store TEXT PRIMARY KEY, version INTEGER)")
        db.execute("INSERT INTO schema_version VALUES ('jobs', 99)")
    app = App.build(Settings(data_dir=tmp_path, database_url=postgres_url), env={})
    try:
        with pytest.raises(
            OSError, match=r"^stores in postgresql postgresql://postgres@"
        ) as raised:
            asyncio.run(app.prepare())
    finally:
        asyncio.run(app.aclose())
    assert "the jobs tables are at version 99, newer than this evald knows" in str(raised.value)
    assert "\n" not in str(raised.value)
