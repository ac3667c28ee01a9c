"""OpenAI-compatible endpoints against the scripted model: round trips, parameters, failures,
retries, timeouts and keys."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from evald.targets import Endpoint, Generation, RetryPolicy, TargetError, Targets

from tests.fakes.model_server import FakeModel, ModelRequest, Reply, ToolCall, running

FAST = RetryPolicy(max_attempts=4, initial_backoff=0.001, max_backoff=0.01)
KEY = "sk-secret-do-not-show"
USER = ({"role": "user", "content": "What is 2+2?"},)


@pytest.fixture
async def fake() -> AsyncIterator[FakeModel]:
    async with running() as model:
        yield model


@pytest.fixture
async def targets() -> AsyncIterator[Targets]:
    made = Targets(cache_path=None, retry=FAST, timeout_seconds=5)
    yield made
    await made.aclose()


@pytest.mark.parametrize(
    ("suffix", "generation", "path", "text"),
    [
        (
            "/v1/completions",
            Generation("completion", prompt="2+2="),
            "/v1/completions",
            "echo: 2+2=",
        ),
        ("/v1", Generation("completion", prompt="abc"), "/v1/completions", "echo: abc"),
        ("", Generation("chat", messages=USER), "/v1/chat/completions", "echo: What is 2+2?"),
        # A chat task pointed at the completions URL still reaches the chat API.
        (
            "/v1/completions",
            Generation("chat", messages=USER),
            "/v1/chat/completions",
            "echo: What is 2+2?",
        ),
        (
            "/v1/chat/completions/",
            Generation("chat", messages=USER),
            "/v1/chat/completions",
            "echo: What is 2+2?",
        ),
    ],
)
async def test_round_trip(
    fake: FakeModel, targets: Targets, suffix: str, generation: Generation, path: str, text: str
) -> None:
    output = await targets.generate(Endpoint(fake.url + suffix, "llama"), generation)
    assert output.text == text
    assert not output.cached
    assert [r.path for r in fake.requests] == [path]
    assert fake.requests[0].model == "llama"
    assert output.response["model"] == "llama"
    assert output.response["choices"][0]["finish_reason"] == "stop"
    assert targets.calls == 1


async def test_chat_messages_are_sent_as_given(fake: FakeModel, targets: Targets) -> None:
    messages = (
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
        {"role": "assistant", "content": "Hello", "name": "bot"},
        {"role": "user", "content": "Bye"},
    )
    await targets.generate(Endpoint(fake.url, "m"), Generation("chat", messages=messages))
    assert fake.requests[0].body["messages"] == [dict(m) for m in messages]


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Adds numbers",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}}},
        },
    }
]


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("completion", {"max_tokens": 16, "temperature": 0.0, "top_p": 0.9, "stop": ["\n"]}),
        ("completion", {"top_k": 5, "seed": 7, "stop": "END", "logprobs": 2}),
        ("chat", {"max_tokens": 32, "temperature": 0.7, "top_k": 40, "stop": ["###"]}),
        ("chat", {"tools": TOOLS, "tool_choice": "auto", "n": 1}),
        ("chat", {"nvext": {"guided_json": {"type": "object"}}, "frequency_penalty": 0.5}),
    ],
)
async def test_params_pass_through(
    fake: FakeModel, targets: Targets, kind: str, params: dict[str, Any]
) -> None:
    generation = (
        Generation("chat", messages=USER, params=params)
        if kind == "chat"
        else Generation("completion", prompt="p", params=params)
    )
    await targets.generate(Endpoint(fake.url, "m"), generation)
    body = fake.requests[0].body
    assert {k: body[k] for k in params} == params
    assert set(body) == set(params) | {"model", "messages" if kind == "chat" else "prompt"}


async def test_chat_tool_calls(fake: FakeModel, targets: Targets) -> None:
    fake.reply = lambda request: Reply(tool_calls=(ToolCall("add", {"a": 1, "b": 2}),))
    output = await targets.generate(
        Endpoint(fake.url, "m"), Generation("chat", messages=USER, params={"tools": TOOLS})
    )
    assert output.text == ""
    [call] = output.tool_calls
    assert call["type"] == "function"
    assert call["function"]["name"] == "add"
    assert json.loads(call["function"]["arguments"]) == {"a": 1, "b": 2}
    assert output.response["choices"][0]["message"]["tool_calls"] == [call]


async def test_reply_is_a_function_of_the_request(fake: FakeModel, targets: Targets) -> None:
    def reply(request: ModelRequest) -> str:
        return str(request.body.get("max_tokens")) + (request.prompt or "")

    fake.reply = reply
    output = await targets.generate(
        Endpoint(fake.url, "m"), Generation("completion", prompt="x", params={"max_tokens": 3})
    )
    assert output.text == "3x"


@pytest.mark.parametrize(
    ("failures", "status", "max_retries", "calls", "ok"),
    [
        (2, 503, None, 3, True),
        (1, 429, None, 2, True),
        (1, 500, 1, 2, True),
        (3, 502, None, 4, True),  # max_attempts=4: three retries
        (4, 503, None, 4, False),  # the budget is used up
        (2, 503, 1, 2, False),
        (1, 504, 0, 1, False),
        (1, 408, 0, 1, False),
    ],
)
async def test_transient_failures_are_retried(
    fake: FakeModel,
    targets: Targets,
    failures: int,
    status: int,
    max_retries: int | None,
    calls: int,
    ok: bool,
) -> None:
    fake.fail(failures, status)
    call = targets.generate(
        Endpoint(fake.url, "m"), Generation("completion", prompt="x"), max_retries=max_retries
    )
    if ok:
        assert (await call).text == "echo: x"
    else:
        with pytest.raises(TargetError) as raised:
            await call
        assert raised.value.transient
        assert raised.value.status == status
        assert f"HTTP {status}" in raised.value.reason
        assert fake.url in raised.value.reason
        assert f"{calls} attempt(s)" in raised.value.reason
    assert fake.calls == calls
    assert targets.calls == calls


async def test_faults_of_one_path_leave_others_alone(fake: FakeModel, targets: Targets) -> None:
    fake.fail(5, 503, path="/v1/chat/completions")
    output = await targets.generate(Endpoint(fake.url, "m"), Generation("completion", prompt="x"))
    assert output.text == "echo: x"
    assert fake.calls == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_rejections_are_not_retried(fake: FakeModel, targets: Targets, status: int) -> None:
    fake.reply = lambda request: Reply(text="bad parameter top_k", status=status)
    with pytest.raises(TargetError) as raised:
        await targets.generate(Endpoint(fake.url, "m"), Generation("completion", prompt="x"))
    assert raised.value.status == status
    assert not raised.value.transient
    assert f"HTTP {status}: bad parameter top_k" in raised.value.reason
    assert fake.url in raised.value.reason
    assert fake.calls == 1


@pytest.mark.parametrize(
    ("raw", "kind", "why"),
    [
        (b"not json", "completion", "not JSON"),
        (b'{"id": "x"}', "completion", "no choices"),
        (b'{"choices": []}', "chat", "no choices"),
        (b"[1, 2]", "chat", "no choices"),
        (b'{"choices": [{"text": "x"}]}', "chat", "no message"),
    ],
)
async def test_unreadable_answers_are_not_retried(
    fake: FakeModel, targets: Targets, raw: bytes, kind: str, why: str
) -> None:
    fake.reply = lambda request: Reply(raw=raw)
    generation = (
        Generation("chat", messages=USER) if kind == "chat" else Generation(kind, prompt="x")
    )
    with pytest.raises(TargetError, match=why) as raised:
        await targets.generate(Endpoint(fake.url, "m"), generation)
    assert not raised.value.transient
    assert fake.url in raised.value.reason
    assert fake.calls == 1


async def test_a_slow_answer_times_out_and_is_retried(fake: FakeModel, targets: Targets) -> None:
    fake.delay = 1.0
    with pytest.raises(TargetError, match=r"no answer within 0\.1s") as raised:
        await targets.generate(
            Endpoint(fake.url, "m"),
            Generation("completion", prompt="x"),
            timeout=0.1,
            max_retries=1,
        )
    assert raised.value.transient
    assert raised.value.status is None
    assert targets.calls == 2


async def test_an_unreachable_endpoint_is_transient(targets: Targets) -> None:
    async with running() as gone:
        url = gone.url
    # The message names the endpoint (without any key) and why.
    failed = r"connection to http://127\.0\.0\.1:\d+/\S+ failed: ConnectError"
    with pytest.raises(TargetError, match=failed) as raised:
        await targets.generate(Endpoint(url, "m"), Generation("completion", prompt="x"))
    assert raised.value.transient
    assert targets.calls == FAST.max_attempts


async def test_an_oversized_answer_is_refused(fake: FakeModel) -> None:
    targets = Targets(cache_path=None, retry=FAST, max_answer_bytes=1024)
    fake.reply = lambda request: "x" * 4096
    try:
        with pytest.raises(TargetError, match="larger than"):
            await targets.generate(
                Endpoint(fake.url, "m"), Generation("completion", prompt="x"), max_retries=0
            )
    finally:
        await targets.aclose()


async def test_api_key_is_sent_and_never_shown(fake: FakeModel, targets: Targets) -> None:
    endpoint = Endpoint(f"{fake.url}/v1", "m", api_key=KEY)
    assert KEY not in repr(endpoint)
    await targets.generate(endpoint, Generation("completion", prompt="x"))
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    fake.reply = lambda request: Reply(text=f"invalid key {KEY}", status=401)
    with pytest.raises(TargetError) as raised:
        await targets.generate(endpoint, Generation("completion", prompt="y"))
    assert raised.value.status == 401
    assert KEY not in str(raised.value)
    assert KEY not in raised.value.reason
    assert "***" in raised.value.reason


async def test_no_key_sends_no_authorization(fake: FakeModel, targets: Targets) -> None:
    await targets.generate(Endpoint(fake.url, "m"), Generation("completion", prompt="x"))
    assert "authorization" not in fake.requests[0].headers


async def test_credentials_in_the_url_are_not_shown(fake: FakeModel, targets: Targets) -> None:
    fake.fail(9, 503)
    url = fake.url.replace("http://", "http://user:pw@") + "/v1?api_key=abc"
    with pytest.raises(TargetError) as raised:
        await targets.generate(Endpoint(url, "m"), Generation("completion", prompt="x"))
    assert "pw" not in raised.value.reason
    assert "abc" not in raised.value.reason
