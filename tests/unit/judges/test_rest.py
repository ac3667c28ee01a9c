"""The judges' own REST requests are the ones the SDKs send, and read the same answers.

The same judge request goes to the local fake endpoint through evald's backend and through the
SDK (google-genai, openai); path, body, authorization and the reply read must be equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from evald.judges.backends import backends, gemini, openai_compat
from evald.judges.backends.gemini import GeminiJudge, GeminiOptions
from evald.judges.base import GenerationParams, JudgeRequest, Media, RejectedError, Reply, Tokens
from evald.judges.http import JudgeHttp
from evald.judges.spec import JudgeSpec, Secret

from tests.fakes.judge_server import Call, FakeJudge, Usage, running

FULL = JudgeRequest(
    "Rate it.",
    "You are a judge.",
    {"type": "object", "properties": {"score": {"type": "number"}}},
    GenerationParams(
        temperature=0.25,
        top_p=0.5,
        top_k=3.0,
        max_output_tokens=256,
        seed=7,
        presence_penalty=0.1,
        frequency_penalty=0.2,
        stop_sequences=("x", "y"),
    ),
    (
        Media("image/png", b"\x89PNG", label="[media 1: image/png]"),
        Media("image/png", uri="https://example.com/a.png", label="[media 2: image/png]"),
    ),
)
REQUESTS = [FULL, JudgeRequest("Plain prompt.")]
COMPARED_HEADERS = ("x-goog-api-key", "authorization", "content-type", "x-server-timeout")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running() as judge:
        judge.usage = Usage(prompt=9, output=4, thoughts=6)
        yield judge


def sent(call: Call) -> tuple[str, dict[str, Any], dict[str, str]]:
    return call.path, call.body, {h: call.headers.get(h, "") for h in COMPARED_HEADERS}


async def ask_both(
    fake: FakeJudge, ours: Any, sdk: Any, model: str, request: JudgeRequest
) -> tuple[Reply, Reply]:
    fake.reset()
    mine = await ours.generate(model, request, 12.5)
    theirs = await sdk(request)
    assert len(fake.calls) == 2
    assert sent(fake.calls[0]) == sent(fake.calls[1])
    return mine, theirs


@pytest.mark.parametrize("vertex", [False, True])
@pytest.mark.parametrize("request_", REQUESTS)
async def test_gemini_sends_what_google_genai_sends(
    fake: FakeJudge, vertex: bool, request_: JudgeRequest
) -> None:
    spec = JudgeSpec(
        "g", "gemini", "m", base_url=fake.url, api_key=Secret("k"), options=GeminiOptions(vertex)
    )
    http = JudgeHttp(4)
    try:
        ours = backends()["gemini"].client(spec, http)
        assert type(ours).__name__ == "GeminiRestJudge"
        sdk = GeminiJudge(spec, http)  # the SDK path (kept for application-default credentials)
        mine, theirs = await ask_both(
            fake, ours, lambda r: sdk.generate("m", r, 12.5), "m", request_
        )
    finally:
        await http.aclose()
    assert mine == theirs
    assert mine.tokens == Tokens(9, 10)


@pytest.mark.parametrize("request_", REQUESTS)
async def test_openai_sends_what_the_openai_sdk_sends(
    fake: FakeJudge, request_: JudgeRequest
) -> None:
    import openai

    spec = JudgeSpec("o", "openai", "m", base_url=f"{fake.url}/v1", api_key=Secret("k"))
    http = JudgeHttp(4)
    sdk_http = http.httpx_client()
    client = openai.AsyncOpenAI(base_url=spec.base_url, api_key="k", http_client=sdk_http)

    async def sdk(request: JudgeRequest) -> Reply:
        # The call the backend made through the SDK: parameters set, top_k as an extra field.
        params = request.params
        schema = request.response_schema
        messages: list[Any] = [{"role": "user", "content": openai_compat._content(request)}]
        if request.system_instruction:
            messages.insert(0, {"role": "system", "content": request.system_instruction})
        kwargs: dict[str, Any] = {
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_output_tokens,
            "seed": params.seed,
            "presence_penalty": params.presence_penalty,
            "frequency_penalty": params.frequency_penalty,
            "stop": list(params.stop_sequences) or None,
        }
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if params.top_k is not None:
            kwargs["extra_body"] = {"top_k": int(params.top_k)}
        if schema:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": dict(schema)},
            }
        completion = await client.chat.completions.create(
            model="m", messages=messages, n=1, **kwargs
        )
        usage = completion.usage
        text = completion.choices[0].message.content
        assert usage is not None
        assert text
        return Reply(text, Tokens(usage.prompt_tokens, usage.completion_tokens))

    try:
        ours = backends()["openai"].client(spec, http)
        mine, theirs = await ask_both(fake, ours, sdk, "m", request_)
    finally:
        await http.aclose()
    assert mine == theirs
    assert mine.tokens == Tokens(9, 10)


def test_gemini_model_names_become_resource_paths() -> None:
    assert gemini.model_path("gemini-2.5-flash", False) == "models/gemini-2.5-flash"
    assert gemini.model_path("tunedModels/t", False) == "tunedModels/t"
    assert (
        gemini.model_path("gemini-2.5-flash", True) == "publishers/google/models/gemini-2.5-flash"
    )
    assert gemini.model_path("meta/llama", True) == "publishers/meta/models/llama"
    for bad in ("../../v1/other", "m?key=x", "m&x", ""):
        with pytest.raises(RejectedError):
            gemini.model_path(bad, False)
