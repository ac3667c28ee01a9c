"""Operation names with the ``-`` wildcard, matched against the stored names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from evald.jobs.operations import _literal, _pattern
from evald.jobs.store import JobStore, new_owner

STORED = [
    "projects/p/locations/l/operations/1",
    "projects/p/locations/m/operations/2",
    "projects/q/locations/l/operations/3",
    "projects/a*b/locations/l/operations/4",
    "projects/axxb/locations/l/operations/5",
    "nemo/jobs/6",  # another kind of job in the same store: never an operation
]
CASES = [
    # (location, job pattern, names matched)
    ("projects/-/locations/-", "*", {1, 2, 3, 4, 5}),
    ("projects/p/locations/-", "*", {1, 2}),
    ("projects/-/locations/l", "*", {1, 3, 4, 5}),
    ("projects/p/locations/l", "*", {1}),
    ("projects/a*b/locations/l", "*", {4}),  # glob characters of a name match only themselves
    ("projects/-/locations/-", _literal("3"), {3}),
    ("projects/-/locations/m", _literal("3"), set()),
]


@pytest.mark.parametrize(("location", "job", "matched"), CASES)
def test_patterns(tmp_path: Path, location: str, job: str, matched: set[int]) -> None:
    async def found() -> set[int]:
        store = JobStore(tmp_path / "jobs.sqlite3", new_owner())
        for name in STORED:
            await store.create(name, b"", "")
        jobs = await store.glob(_pattern(location, job))
        return {int(j.name.rsplit("/", 1)[1]) for j in jobs}

    assert asyncio.run(found()) == matched
