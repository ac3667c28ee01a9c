"""The task store: tasks with rows, idempotent upserts that survive a new store on the same file
(a rater resumes after a restart), filters and paging; and the keys file's roles."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from evald.human.store import HumanStore, StoredTask
from evald.ops.auth import ANNOTATOR, read_keys_file


def test_store_round_trip(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = HumanStore(tmp_path / "human.sqlite3")
        task = StoredTask("t1", {"mechanism": "thumbs_up_down"}, 3, 1.0, "boss")
        await store.create(task, [{"prompt": f"p{i}"} for i in range(3)])
        await store.rate("t1", 0, "ann", "m", "up")
        await store.rate("t1", 0, "ann", "m", "down")  # a rater changes their mind
        await store.rate("t1", 2, "bob", "m", "up")
        await store.rate("t1", 1, "ann", "m", "up")
        reopened = HumanStore(tmp_path / "human.sqlite3")
        assert await reopened.get("t1") == task
        assert await reopened.row("t1", 2) == {"prompt": "p2"}
        assert await reopened.row("t1", 3) is None
        found = await reopened.ratings("t1")
        assert [(r.row, r.rater, r.value) for r in found] == [
            (0, "ann", "down"),
            (1, "ann", "up"),
            (2, "bob", "up"),
        ]
        assert [r.row for r in await reopened.ratings("t1", rater="ann")] == [0, 1]
        assert [r.rater for r in await reopened.ratings("t1", row=2)] == ["bob"]
        assert [r.row for r in await reopened.ratings("t1", offset=1, limit=1)] == [1]
        assert [t.id for t in await reopened.list()] == ["t1"]
        assert (await reopened.count("t1"), await reopened.count("t1", "ann")) == (3, 2)
        assert await reopened.delete("t1") is True
        assert await reopened.delete("t1") is False
        assert await reopened.ratings("t1") == []

    asyncio.run(scenario())


ROLES = [
    # (role line, role or None for refused)
    ("", "admin"),
    ('role = "annotator"\n', ANNOTATOR),
    ('role = "admin"\n', "admin"),
    ('role = "owner"\n', None),
]


@pytest.mark.parametrize(("line", "role"), ROLES)
def test_keys_file_roles(tmp_path: Path, line: str, role: str | None) -> None:
    path = tmp_path / "keys.toml"
    path.write_text(f'[[keys]]\nname = "k"\nkey = "abc"\n{line}')
    if role is None:
        with pytest.raises(ValueError, match="role must be one of admin, annotator"):
            read_keys_file(path)
        return
    assert read_keys_file(path)[0].role == role
