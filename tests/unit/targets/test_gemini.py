"""Gemini endpoints through google-genai against the scripted model: text, function calls in
OpenAI's shape, parameter mapping, failures."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from evald.targets import Endpoint, Generation, RetryPolicy, TargetError, Targets

from tests.fakes.model_server import FakeModel, Reply, ToolCall, running

FAST = RetryPolicy(max_attempts=4, initial_backoff=0.001, max_backoff=0.01)
KEY = "gemini-secret-key"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@pytest.fixture
async def fake() -> AsyncIterator[FakeModel]:
    async with running() as model:
        yield model


@pytest.fixture
async def targets() -> AsyncIterator[Targets]:
    made = Targets(cache_path=None, retry=FAST, timeout_seconds=5)
    yield made
    await made.aclose()


def gemini(fake: FakeModel, model: str = "gemini-x") -> Endpoint:
    return Endpoint(fake.url, model, api_key=KEY, format="gemini")


@pytest.mark.parametrize(
    ("generation", "contents", "system"),
    [
        (
            Generation("completion", prompt="Say hi"),
            [{"role": "user", "parts": [{"text": "Say hi"}]}],
            None,
        ),
        (
            Generation(
                "chat",
                messages=(
                    {"role": "system", "content": "Be terse."},
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello"},
                    {"role": "user", "content": [{"type": "text", "text": "Bye"}]},
                ),
            ),
            [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {"role": "model", "parts": [{"text": "Hello"}]},
                {"role": "user", "parts": [{"text": "Bye"}]},
            ],
            "Be terse.",
        ),
    ],
)
async def test_text_round_trip(
    fake: FakeModel,
    targets: Targets,
    generation: Generation,
    contents: list[dict[str, Any]],
    system: str | None,
) -> None:
    output = await targets.generate(gemini(fake), generation)
    [request] = fake.requests
    assert request.path == "/v1beta/models/gemini-x:generateContent"
    assert request.headers["x-goog-api-key"] == KEY
    assert request.body["contents"] == contents
    sent_system = request.body.get("systemInstruction")
    assert (sent_system["parts"][0]["text"] if sent_system else None) == system
    last = contents[-1]["parts"][0]["text"]
    assert output.text == f"echo: {last}"
    assert output.tool_calls == ()
    message = output.response["choices"][0]["message"]
    assert message == {"role": "assistant", "content": output.text}
    assert output.response["choices"][0]["finish_reason"] == "stop"
    assert output.response["usage"]["total_tokens"] == 2


async def test_function_call_becomes_openai_tool_call(fake: FakeModel, targets: Targets) -> None:
    fake.reply = lambda request: Reply(
        text="Checking.", tool_calls=(ToolCall("get_weather", {"city": "Paris"}),)
    )
    output = await targets.generate(
        gemini(fake),
        Generation(
            "chat",
            messages=({"role": "user", "content": "Weather in Paris?"},),
            params={"tools": TOOLS, "tool_choice": "required"},
        ),
    )
    assert output.text == "Checking."
    [call] = output.tool_calls
    assert call["type"] == "function"
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    choice = output.response["choices"][0]
    assert choice["message"]["tool_calls"] == [call]
    assert choice["finish_reason"] == "tool_calls"
    body = fake.requests[0].body
    [declaration] = body["tools"][0]["functionDeclarations"]
    assert declaration["name"] == "get_weather"
    # The SDK sends the proto field name; Google's JSON parsers take it as well as camelCase.
    schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert schema == TOOLS[0]["function"]["parameters"]
    assert body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"


async def test_tool_history_is_sent_as_function_parts(fake: FakeModel, targets: Targets) -> None:
    messages = (
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "cold"},
    )
    await targets.generate(gemini(fake), Generation("chat", messages=messages))
    contents = fake.requests[0].body["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}],
    }
    assert contents[2]["parts"][0]["functionResponse"] == {
        "name": "get_weather",
        "response": {"result": "cold"},
    }


@pytest.mark.parametrize(
    ("params", "config"),
    [
        (
            {"max_tokens": 64, "temperature": 0.2, "top_p": 0.9, "top_k": 20, "stop": ["\n"]},
            {
                "maxOutputTokens": 64,
                "temperature": 0.2,
                "topP": 0.9,
                "topK": 20,
                "stopSequences": ["\n"],
            },
        ),
        ({"stop": "END", "seed": 3}, {"stopSequences": ["END"], "seed": 3}),
        ({"max_completion_tokens": 5, "logprobs": True}, {"maxOutputTokens": 5}),
    ],
)
async def test_params_map_to_gemini_names(
    fake: FakeModel, targets: Targets, params: dict[str, Any], config: dict[str, Any]
) -> None:
    await targets.generate(gemini(fake), Generation("completion", prompt="x", params=params))
    sent = dict(fake.requests[0].body["generationConfig"])
    assert sent.pop("candidateCount") == 1
    assert sent == config


async def test_server_errors_are_retried(fake: FakeModel, targets: Targets) -> None:
    fake.fail(2, 503)
    output = await targets.generate(gemini(fake), Generation("completion", prompt="x"))
    assert output.text == "echo: x"
    assert fake.calls == 3
    assert targets.calls == 3


async def test_rejection_is_not_retried(fake: FakeModel, targets: Targets) -> None:
    fake.reply = lambda request: Reply(text="model not found", status=404)
    with pytest.raises(TargetError, match="HTTP 404") as raised:
        await targets.generate(gemini(fake), Generation("completion", prompt="x"))
    assert raised.value.status == 404
    assert not raised.value.transient
    assert KEY not in raised.value.reason
    assert fake.calls == 1


async def test_timeout(fake: FakeModel, targets: Targets) -> None:
    fake.delay = 1.0
    with pytest.raises(TargetError, match="no answer within") as raised:
        await targets.generate(
            gemini(fake), Generation("completion", prompt="x"), timeout=0.1, max_retries=0
        )
    assert raised.value.transient
    assert targets.calls == 1


async def test_no_key_is_refused_not_taken_from_the_environment(
    fake: FakeModel, targets: Targets, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endpoint URL is the caller's: the server's own key must never be sent to it."""
    monkeypatch.setenv("GOOGLE_API_KEY", "server-SECRET")
    monkeypatch.setenv("GEMINI_API_KEY", "server-SECRET")
    endpoint = Endpoint(fake.url, "gemini-x", format="gemini")
    with pytest.raises(TargetError) as caught:
        await targets.generate(
            endpoint, Generation("chat", messages=({"role": "user", "content": "Hi"},))
        )
    assert "api_key" in caught.value.reason
    assert not caught.value.transient
    assert fake.calls == 0
