"""The output cache: a hit makes no call, anything that changes the output misses, and it
outlives the Targets object (a resumed job calls the model only for rows it lacks)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path

import pytest
from evald.targets import Endpoint, Generation, RetryPolicy, TargetError, Targets

from tests.fakes.model_server import FakeModel, Reply, ToolCall, running

FAST = RetryPolicy(max_attempts=2, initial_backoff=0.001, max_backoff=0.01)
USER = ({"role": "user", "content": "Hi"},)


@pytest.fixture
async def fake() -> AsyncIterator[FakeModel]:
    async with running() as model:
        yield model


def chat(**params: object) -> Generation:
    return Generation("chat", messages=USER, params=params)


@pytest.mark.parametrize("format", ["nim", "openai", "gemini"])
async def test_a_hit_makes_no_call(fake: FakeModel, tmp_path: Path, format: str) -> None:
    fake.reply = lambda request: Reply(text="hello", tool_calls=(ToolCall("f", {"x": 1}),))
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    endpoint = Endpoint(fake.url, "m", api_key="k", format=format)
    try:
        first = await targets.generate(endpoint, chat(temperature=0))
        second = await targets.generate(endpoint, chat(temperature=0))
    finally:
        await targets.aclose()
    assert not first.cached
    assert second.cached
    assert (second.text, second.tool_calls, second.response) == (
        first.text,
        first.tool_calls,
        first.response,
    )
    assert second.tool_calls[0]["function"]["name"] == "f"
    assert fake.calls == 1
    assert targets.calls == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (chat(temperature=0), chat(temperature=1)),
        (chat(temperature=0), chat(temperature=0, seed=1)),
        (chat(), Generation("chat", messages=({"role": "user", "content": "Ho"},))),
        (Generation("completion", prompt="Hi"), chat()),
    ],
)
async def test_a_different_generation_misses(
    fake: FakeModel, tmp_path: Path, first: Generation, second: Generation
) -> None:
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    endpoint = Endpoint(fake.url, "m")
    try:
        await targets.generate(endpoint, first)
        output = await targets.generate(endpoint, second)
    finally:
        await targets.aclose()
    assert not output.cached
    assert fake.calls == 2


@pytest.mark.parametrize(
    "other",
    [
        Endpoint("{url}", "m2"),
        Endpoint("{url}/other", "m"),
        Endpoint("{url}", "m", format="openai"),
    ],
)
async def test_a_different_endpoint_misses(
    fake: FakeModel, tmp_path: Path, other: Endpoint
) -> None:
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    try:
        await targets.generate(Endpoint(fake.url, "m"), chat())
        await targets.generate(
            Endpoint(other.url.format(url=fake.url), other.model_id, format=other.format), chat()
        )
    finally:
        await targets.aclose()
    assert fake.calls == 2


async def test_the_cache_survives_a_new_targets_object(fake: FakeModel, tmp_path: Path) -> None:
    path = tmp_path / "cache" / "targets.db"
    endpoint = Endpoint(fake.url + "/v1/chat/completions", "m", api_key="old-key")
    before = Targets(cache_path=path, retry=FAST)
    first = await before.generate(endpoint, chat(max_tokens=5))
    await before.aclose()
    after = Targets(cache_path=path, retry=FAST)
    rotated = Endpoint(fake.url + "/v1", "m", api_key="new-key")  # same base URL, new key
    try:
        again = await after.generate(rotated, chat(max_tokens=5))
    finally:
        await after.aclose()
    assert again.cached
    assert again.text == first.text
    assert fake.calls == 1
    with closing(sqlite3.connect(path)) as db, db:
        stored = " ".join(row[0] for row in db.execute("SELECT output FROM target_outputs"))
    assert "old-key" not in stored


async def test_use_cache_false_calls_again(fake: FakeModel, tmp_path: Path) -> None:
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    try:
        await targets.generate(Endpoint(fake.url, "m"), chat())
        output = await targets.generate(Endpoint(fake.url, "m"), chat(), use_cache=False)
    finally:
        await targets.aclose()
    assert not output.cached
    assert fake.calls == 2


async def test_failures_are_not_cached(fake: FakeModel, tmp_path: Path) -> None:
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    fake.fail(2, 503)
    try:
        with pytest.raises(TargetError):
            await targets.generate(Endpoint(fake.url, "m"), chat())
        output = await targets.generate(Endpoint(fake.url, "m"), chat())
    finally:
        await targets.aclose()
    assert not output.cached
    assert fake.calls == 3


async def test_no_cache_path_caches_nothing(fake: FakeModel) -> None:
    targets = Targets(cache_path=None, retry=FAST)
    try:
        await targets.generate(Endpoint(fake.url, "m"), chat())
        output = await targets.generate(Endpoint(fake.url, "m"), chat())
    finally:
        await targets.aclose()
    assert not output.cached
    assert fake.calls == 2


async def test_scopes_keep_their_own_outputs(fake: FakeModel, tmp_path: Path) -> None:
    """A job's outputs are its own: a new job samples again, the same job (resumed) does not."""
    targets = Targets(cache_path=tmp_path / "targets.db", retry=FAST)
    endpoint = Endpoint(fake.url, "m")
    try:
        await targets.generate(endpoint, chat(), scope="eval-1")
        resumed = await targets.generate(endpoint, chat(), scope="eval-1")
        other = await targets.generate(endpoint, chat(), scope="eval-2")
    finally:
        await targets.aclose()
    assert resumed.cached
    assert not other.cached
    assert fake.calls == 2
