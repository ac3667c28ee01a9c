"""The judge cache: lookups and writes gathered into few transactions, from any event loop,
and a cache that fails is bypassed, never a judge call's failure."""

from __future__ import annotations

import asyncio
import logging
import threading
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from evald.database import Connection, sqlite
from evald.judges.cache import TABLES, JudgeCache


async def test_calls_in_flight_share_transactions(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    keys = [f"k{i}" for i in range(600)]
    assert await asyncio.gather(*(cache.get(k) for k in keys)) == [None] * 600
    await asyncio.gather(*(cache.put(k, f"answer {k}") for k in keys))
    found = await asyncio.gather(*(cache.get(k) for k in keys))
    assert found == [f"answer {k}" for k in keys]
    assert cache.rounds < 3 * 600 // 100  # a transaction per call would be 1,800
    cache.close(wait=10)


async def test_a_lookup_sees_the_writes_queued_before_it(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    writes = [asyncio.ensure_future(cache.put("k", f"v{i}")) for i in range(5)]
    lookup = asyncio.ensure_future(cache.get("k"))
    await asyncio.gather(*writes)
    assert await lookup == "v4"
    cache.close(wait=10)


def test_closing_stores_what_was_given_and_the_cache_still_works(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    cache = JudgeCache(path)

    async def give() -> None:
        pending = [asyncio.ensure_future(cache.put(f"k{i}", "a")) for i in range(50)]
        await asyncio.sleep(0)  # queued, perhaps not yet written
        cache.close(wait=10)
        await asyncio.gather(*pending)

    asyncio.run(give())
    assert cache._thread is None
    reader = JudgeCache(path)
    assert asyncio.run(reader.get("k49")) == "a"
    assert asyncio.run(cache.get("k0")) == "a"  # a closed cache starts its thread again
    cache.close(wait=10)
    reader.close(wait=10)


def test_callers_on_several_event_loops_each_get_their_answers(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    asyncio.run(cache.put("shared", "yes"))
    results: dict[int, list[str | None]] = {}

    def caller(number: int) -> None:
        async def ask() -> list[str | None]:
            await cache.put(f"own{number}", str(number))
            return list(await asyncio.gather(cache.get("shared"), cache.get(f"own{number}")))

        results[number] = asyncio.run(ask())

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == {n: ["yes", str(n)] for n in range(4)}
    cache.close(wait=10)


async def test_a_cancelled_lookup_leaves_the_others_answered(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    await cache.put("k", "v")
    lookups = [asyncio.ensure_future(cache.get("k")) for _ in range(20)]
    lookups[3].cancel()
    done = await asyncio.gather(*lookups, return_exceptions=True)
    assert isinstance(done[3], asyncio.CancelledError)
    assert [d for i, d in enumerate(done) if i != 3] == ["v"] * 19
    cache.close(wait=10)


class Broken:
    """A database whose every transaction fails."""

    dialect = "sqlite"

    def transaction(self) -> AbstractContextManager[Connection]:
        raise OSError("disk I/O error")


async def test_a_failing_cache_misses_and_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = JudgeCache(sqlite(tmp_path / "c.sqlite3", TABLES))
    cache.database = Broken()  # type: ignore[assignment]
    with caplog.at_level(logging.WARNING, logger="evald.judges.cache"):
        await cache.put("k", "v")  # not raised: the judge's answer still reaches the caller
        assert await cache.get("k") is None
    assert "judge cache unavailable" in caplog.text
    assert "disk I/O error" in caplog.text
    cache.close(wait=10)
