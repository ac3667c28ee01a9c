"""A judge or model endpoint that cannot be reached is named in the error, without its secrets."""

from __future__ import annotations

import httpx
import pytest
from evald.judges import JudgeRequest
from evald.judges.backends import backends
from evald.judges.base import TransientError
from evald.judges.http import JudgeHttp, connection_failed, shown_url
from evald.judges.spec import JudgeSpec, Secret

SECRET = "sk-SECRET-in-a-url"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/v1/chat/completions", "http://127.0.0.1:8000/v1/chat/completions"),
        (f"https://user:{SECRET}@judge.example/v1?key={SECRET}#x", "https://judge.example/v1"),
        ("not a url at all ::", "(an invalid URL)"),
    ],
)
def test_shown_url(url: str, shown: str) -> None:
    assert shown_url(url) == shown


async def test_an_unreachable_url_is_named() -> None:
    async with httpx.AsyncClient() as http:
        with pytest.raises(httpx.TransportError) as raised:
            await http.post(f"http://u:{SECRET}@127.0.0.1:1/v1/chat?key={SECRET}", json={})
    message = connection_failed(raised.value)
    assert message.startswith("connection to http://127.0.0.1:1/v1/chat failed: ConnectError")
    assert SECRET not in message


async def test_the_openai_judge_names_its_endpoint() -> None:
    spec = JudgeSpec(
        name="j",
        backend="openai",
        model="m",
        base_url="http://127.0.0.1:1/v1",
        api_key=Secret(SECRET),
    )
    http = JudgeHttp(2)
    try:
        judge = backends()["openai"].client(spec, http)
        with pytest.raises(TransientError) as raised:
            await judge.generate("m", JudgeRequest(prompt="hi"), 5.0)
    finally:
        await http.aclose()
    message = str(raised.value)
    assert "connection to http://127.0.0.1:1/v1/chat/completions failed: ConnectError" in message
    assert SECRET not in message
