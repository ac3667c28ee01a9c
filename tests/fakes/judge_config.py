"""Writing a judge config that points evald at a :class:`~tests.fakes.judge_server.FakeJudge`.

Every test server watches one judge config file per test process, :data:`CONFIG`
(``tests.support.serving`` passes it as ``judge_config``; ``evald serve`` subprocesses get it
through ``EVALD_JUDGE_CONFIG``): :func:`configure` writes it, and it is removed after each test
(``tests/conftest.py``), so a test that configures no judge sees none.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

CONFIG = Path(tempfile.mkdtemp(prefix="evald-test-judges-")) / "judges.json"
"""The judge config file every test server of this process watches."""

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
    sampling: tuple[int, bool] | None = (1, False),
    prompts: str | None = None,
    **judge: Any,
) -> Path:
    """Write a JSON judge config for one judge at ``url`` and point the environment at it.

    ``sampling`` is the server's (sampling_count, flip_enabled) for requests that leave them
    unset: one unflipped sample keeps a scripted judge's replies in step with the calls; None
    leaves Vertex's defaults (4 samples, half flipped). ``prompts``: the prompt set of the
    predefined metrics (unset: the default)."""
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
    if sampling is not None:
        config["sampling_count"], config["flip_enabled"] = sampling
    if prompts is not None:
        config["prompts"] = prompts
    for name in (
        "EVALD_JUDGE_CACHE",
        "EVALD_JUDGE_TIMEOUT",
        "EVALD_JUDGE_MAX_ATTEMPTS",
        "EVALD_JUDGE_SAMPLING_COUNT",
        "EVALD_JUDGE_FLIP_ENABLED",
        "EVALD_JUDGE_PROMPTS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FAKE_JUDGE_KEY", API_KEY)
    monkeypatch.setenv("EVALD_JUDGE_CONFIG", str(CONFIG))
    write(config)
    return CONFIG


def write(config: dict[str, Any]) -> None:
    """Replace :data:`CONFIG` at once: a watching server never reads half a file."""
    partial = CONFIG.with_suffix(".partial")
    partial.write_text(json.dumps(config), encoding="utf-8")
    os.replace(partial, CONFIG)


def remove() -> None:
    """No judge configured any more."""
    CONFIG.unlink(missing_ok=True)
