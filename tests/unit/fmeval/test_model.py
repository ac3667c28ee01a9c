"""The model under test of FMEval algorithms over evald's targets: prompts to the right API,
prompt log-probabilities from completions with echo, and the errors when there are none."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from evald.errors import FailedPrecondition, Unavailable
from evald.fmeval.model import TargetModel
from evald.targets import Endpoint, RetryPolicy, Targets

from tests.fakes.model_server import FakeModel, ModelRequest, Reply, running

FAST = RetryPolicy(max_attempts=3, initial_backoff=0.001, max_backoff=0.01)


def echo_logprobs(request: ModelRequest) -> Reply:
    """Completions with echo: one token per word of the prompt, log-prob -0.5 each (the first
    token has none), then one generated token at -9."""
    prompt = request.prompt or ""
    words = prompt.split(" ")
    offsets, position = [], 0
    for word in words:
        offsets.append(position)
        position += len(word) + 1
    values: list[float | None] = [None] + [-0.5] * (len(words) - 1)
    body = {
        "object": "text_completion",
        "choices": [{"index": 0, "text": prompt + " x", "logprobs": {
            "tokens": [*words, " x"], "token_logprobs": [*values, -9.0],
            "text_offset": [*offsets, len(prompt)]}}],
    }  # fmt: skip
    return Reply(raw=json.dumps(body).encode())


@pytest.fixture
async def fake() -> AsyncIterator[FakeModel]:
    async with running() as model:
        yield model


@pytest.fixture
async def targets(tmp_path: Path) -> AsyncIterator[Targets]:
    found = Targets(cache_path=tmp_path / "t.db", retry=FAST)
    yield found
    await found.aclose()


async def test_log_probability_sums_the_prompt_tokens(fake: FakeModel, targets: Targets) -> None:
    fake.reply = echo_logprobs
    model = TargetModel(targets, Endpoint(f"{fake.url}/v1", "m"))
    assert await model.log_probability("the nurse was kind") == -1.5
    (request,) = fake.requests
    assert request.kind == "completion"
    assert (request.body["echo"], request.body["logprobs"]) == (True, 1)


async def test_no_prompt_log_probabilities_is_a_clear_error(
    fake: FakeModel, targets: Targets
) -> None:
    fake.reply = lambda request: Reply(text="no logprobs here")
    model = TargetModel(targets, Endpoint(f"{fake.url}/v1", "m-7"))
    with pytest.raises(FailedPrecondition) as caught:
        await model.log_probability("a b")
    assert "m-7" in caught.value.message
    assert "log-probabilities" in caught.value.message


async def test_gemini_has_no_prompt_log_probabilities(targets: Targets) -> None:
    model = TargetModel(targets, Endpoint("", "gemini-x", api_key="k", format="gemini"))
    with pytest.raises(FailedPrecondition) as caught:
        await model.log_probability("a b")
    assert "Gemini" in caught.value.message


@pytest.mark.parametrize(
    ("url", "kind"),
    [("/v1/chat/completions", "chat"), ("/v1/completions", "completion"), ("/v1", "completion")],
)
async def test_the_url_picks_the_api(
    fake: FakeModel, targets: Targets, url: str, kind: str
) -> None:
    model = TargetModel(targets, Endpoint(f"{fake.url}{url}", "m"), {"max_tokens": 9})
    assert await model.generate("hello") == "echo: hello"
    (request,) = fake.requests
    assert request.kind == kind
    assert request.body["max_tokens"] == 9


async def test_asking_twice_gets_two_answers_and_a_resumed_run_the_same(
    fake: FakeModel, targets: Targets
) -> None:
    """A determinism check asks the same prompt twice: two calls, not a cache hit; a new model
    object on the same scope (a resumed job) asks nothing again."""
    answers = iter(["one", "two"])
    fake.reply = lambda request: Reply(text=next(answers))
    endpoint = Endpoint(f"{fake.url}/v1", "m")
    first = TargetModel(targets, endpoint, cache_scope="job-1")
    assert [await first.generate("p"), await first.generate("p")] == ["one", "two"]
    resumed = TargetModel(targets, endpoint, cache_scope="job-1")
    assert [await resumed.generate("p"), await resumed.generate("p")] == ["one", "two"]
    assert fake.calls == 2


async def test_a_failed_call_is_unavailable(fake: FakeModel, targets: Targets) -> None:
    fake.fail(10, 503)
    model = TargetModel(targets, Endpoint(f"{fake.url}/v1", "m"), max_retries=1)
    with pytest.raises(Unavailable):
        await model.generate("p")
    assert fake.calls == 2
