"""The URL rules of OpenAI-compatible endpoints, safe URLs, and what the cache key covers."""

from __future__ import annotations

from typing import Any

import pytest
from evald.targets import Endpoint, Generation
from evald.targets.base import openai_base, openai_url, safe_url
from evald.targets.cache import cache_key


@pytest.mark.parametrize(
    ("url", "kind", "expected"),
    [
        ("http://h:8000/v1/completions", "completion", "http://h:8000/v1/completions"),
        ("http://h:8000/v1/completions", "chat", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1/chat/completions", "chat", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1/chat/completions", "completion", "http://h:8000/v1/completions"),
        ("http://h:8000/v1/chat/completions/", "chat", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1", "chat", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1/", "completion", "http://h:8000/v1/completions"),
        ("http://h:8000", "chat", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/", "completion", "http://h:8000/v1/completions"),
        (
            "https://api.example.com/openai/v1",
            "chat",
            "https://api.example.com/openai/v1/chat/completions",
        ),
        (
            "https://ex.com/x/v1/completions?api-version=2",
            "chat",
            "https://ex.com/x/v1/chat/completions?api-version=2",
        ),
    ],
)
def test_openai_url(url: str, kind: str, expected: str) -> None:
    assert openai_url(url, kind) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://h/v1/chat/completions", "http://h/v1"),
        ("http://h/v1/completions", "http://h/v1"),
        ("http://h", "http://h/v1"),
        ("http://h/base", "http://h/base"),
    ],
)
def test_openai_base(url: str, expected: str) -> None:
    assert openai_base(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:pw@h:1/v1", "http://h:1/v1"),
        ("https://h/v1?key=abc&mode=x", "https://h/v1?key=***&mode=x"),
        ("https://h/v1?access_token=abc", "https://h/v1?access_token=***"),
        ("https://h/v1", "https://h/v1"),
    ],
)
def test_safe_url_hides_credentials(url: str, expected: str) -> None:
    assert safe_url(url) == expected


@pytest.mark.parametrize(
    ("url", "format", "base"),
    [
        ("", "gemini", "https://generativelanguage.googleapis.com"),
        ("http://g:1/", "gemini", "http://g:1"),
        ("http://h:8000", "nim", "http://h:8000/v1"),
        ("http://h:8000/v1/chat/completions", "openai", "http://h:8000/v1"),
    ],
)
def test_endpoint_base_url(url: str, format: str, base: str) -> None:
    assert Endpoint(url, "m", format=format).base_url == base


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="format"):
        Endpoint("http://h", "m", format="bedrock")


@pytest.mark.parametrize(
    "kwargs",
    [{"kind": "chat"}, {"kind": "completion"}, {"kind": "embedding", "prompt": "x"}],
)
def test_incomplete_generations_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"generation|completion|chat"):
        Generation(**kwargs)


BASE = Endpoint("http://h/v1", "m")
GEN = Generation("chat", messages=({"role": "user", "content": "hi"},), params={"seed": 1})


@pytest.mark.parametrize(
    ("endpoint", "generation", "same"),
    [
        (Endpoint("http://h/v1", "m", api_key="other"), GEN, True),  # the key is not in it
        (Endpoint("http://h/v1/chat/completions", "m"), GEN, True),  # the same base URL
        (Endpoint("http://h:8000", "m"), GEN, False),
        (Endpoint("http://h/v1", "m2"), GEN, False),
        (Endpoint("http://h/v1", "m", format="openai"), GEN, False),
        (BASE, Generation("chat", messages=GEN.messages, params={"seed": 2}), False),
        (BASE, Generation("chat", messages=GEN.messages), False),
        (BASE, Generation("chat", messages=({"role": "user", "content": "ho"},)), False),
        (BASE, Generation("chat", messages=GEN.messages, params={"seed": 1}), True),
        (BASE, Generation("completion", prompt="hi", params={"seed": 1}), False),
    ],
)
def test_cache_key(endpoint: Endpoint, generation: Generation, same: bool) -> None:
    assert (cache_key(endpoint, generation) == cache_key(BASE, GEN)) is same
