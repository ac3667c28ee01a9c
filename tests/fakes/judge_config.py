"""Writing a judge config that points evald at a :class:`~tests.fakes.judge_server.FakeJudge`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

API_KEY = "sk-fake-SECRET-7f3a9c"
"""The key the tests configure; it must never show up in a log line or an error message."""
MODELS = {"gemini": "gemini-2.5-flash", "openai": "judge-llm"}


def configure(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    url: str,
    backend: str = "gemini",
    *,
    cache: bool = False,
    timeout: float = 5.0,
    attempts: int = 3,
    **judge: Any,
) -> Path:
    """Write a JSON judge config for one judge at ``url`` and point the environment at it."""
    entry: dict[str, Any] = {
        "backend": backend,
        "model": MODELS[backend],
        "base_url": url + ("/v1" if backend == "openai" else ""),
        "api_key_env": "FAKE_JUDGE_KEY",
        **judge,
    }
    config = {
        "default_judge": "fake",
        "timeout_seconds": timeout,
        "retry": {
            "max_attempts": attempts,
            "initial_backoff_seconds": 0.01,
            "max_backoff_seconds": 0.05,
        },
        "cache": {"enabled": cache, "path": str(tmp_path / "judge-cache.sqlite3")},
        "judges": {"fake": entry},
    }
    path = tmp_path / f"judges-{backend}.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    for name in ("EVALD_JUDGE_CACHE", "EVALD_JUDGE_TIMEOUT", "EVALD_JUDGE_MAX_ATTEMPTS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FAKE_JUDGE_KEY", API_KEY)
    monkeypatch.setenv("EVALD_JUDGE_CONFIG", str(path))
    return path
