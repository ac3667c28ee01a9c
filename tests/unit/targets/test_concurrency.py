"""Per-endpoint concurrency limits, cancellation, and the fake served from a thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from evald.targets import Endpoint, Generation, RetryPolicy, Targets

from tests.fakes.model_server import FakeModel, running, running_in_thread

FAST = RetryPolicy(max_attempts=2, initial_backoff=0.001, max_backoff=0.01)


@pytest.fixture
async def fake() -> AsyncIterator[FakeModel]:
    async with running() as model:
        yield model


def prompt(i: int) -> Generation:
    return Generation("completion", prompt=f"row {i}")


@pytest.mark.parametrize(
    ("max_concurrency", "concurrency", "limit"),
    [(2, None, 2), (32, 2, 2), (32, 1, 1), (3, None, 3)],
)
async def test_at_most_concurrency_in_flight(
    fake: FakeModel, max_concurrency: int, concurrency: int | None, limit: int
) -> None:
    fake.delay = 0.05
    targets = Targets(cache_path=None, max_concurrency=max_concurrency, retry=FAST)
    endpoint = Endpoint(fake.url, "m")
    try:
        outputs = await asyncio.gather(
            *(targets.generate(endpoint, prompt(i), concurrency=concurrency) for i in range(8))
        )
    finally:
        await targets.aclose()
    assert [o.text for o in outputs] == [f"echo: row {i}" for i in range(8)]
    assert fake.max_in_flight == limit
    assert fake.calls == 8


async def test_the_first_concurrency_of_an_endpoint_wins(fake: FakeModel) -> None:
    fake.delay = 0.05
    targets = Targets(cache_path=None, retry=FAST)
    endpoint = Endpoint(fake.url, "m")
    try:
        await targets.generate(endpoint, prompt(-1), concurrency=1)
        await asyncio.gather(
            *(targets.generate(endpoint, prompt(i), concurrency=8) for i in range(4))
        )
    finally:
        await targets.aclose()
    assert fake.max_in_flight == 1


async def test_endpoints_have_limits_of_their_own(fake: FakeModel) -> None:
    fake.delay = 0.05
    targets = Targets(cache_path=None, max_concurrency=1, retry=FAST)
    try:
        await asyncio.gather(
            *(targets.generate(Endpoint(fake.url, f"m{i % 2}"), prompt(i)) for i in range(4))
        )
    finally:
        await targets.aclose()
    assert fake.max_in_flight == 2  # one per model


@pytest.mark.parametrize("format", ["nim", "gemini"])
async def test_cancelling_the_caller_cancels_the_request(fake: FakeModel, format: str) -> None:
    fake.delay = 5.0
    targets = Targets(cache_path=None, retry=FAST)
    task = asyncio.create_task(
        targets.generate(Endpoint(fake.url, "m", api_key="k", format=format), prompt(0))
    )
    try:
        for _ in range(200):  # until the request reached the fake
            if fake.in_flight:
                break
            await asyncio.sleep(0.01)
        assert fake.in_flight == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(200):  # the fake's handler is cancelled when the connection closes
            if fake.cancelled:
                break
            await asyncio.sleep(0.01)
    finally:
        await targets.aclose()
    assert fake.cancelled == 1
    assert fake.in_flight == 0
    assert targets.calls == 1


@pytest.mark.parametrize(
    ("path", "body", "key", "value"),
    [
        ("/v1/completions", {"model": "m", "prompt": "x"}, "text", "echo: x"),
        (
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": "y"}]},
            "message",
            {"role": "assistant", "content": "echo: y"},
        ),
    ],
)
def test_the_fake_serves_sync_clients_from_a_thread(
    path: str, body: dict[str, object], key: str, value: object
) -> None:
    with running_in_thread() as fake:
        fake.fail(1, 503, path=path)
        with httpx.Client(base_url=fake.url) as client:
            assert client.post(path, json=body).status_code == 503
            answer = client.post(path, json=body).json()
    assert answer["choices"][0][key] == value
    assert fake.calls == 2
    assert [r.body for r in fake.requests] == [body, body]
