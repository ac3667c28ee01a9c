"""Judge config: files, environment, model resolution, secrets."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from evald.judges.config import ConfigError, JudgesConfig, Secret, load, short_model_name

GEMINI = {"backend": "gemini", "model": "gemini-2.5-flash", "api_key_env": "K"}
LOCAL = {
    "backend": "openai",
    "model": "qwen2.5:7b",
    "base_url": "http://127.0.0.1:11434/v1/",
    "models": ["llama*"],
}
ENV = {"K": "secret-value"}

SHORT_NAMES = [
    (
        "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash",
        "gemini-2.5-flash",
    ),
    ("publishers/google/models/gemini-2.5-pro", "gemini-2.5-pro"),
    ("models/gemini-2.0-flash", "gemini-2.0-flash"),
    ("gemini-2.5-flash", "gemini-2.5-flash"),
    (" qwen2.5:7b ", "qwen2.5:7b"),
]

RESOLVE = [
    # (requested autorater_model, judge, model called)
    ("", "gemini", "gemini-2.5-flash"),
    ("gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
    (
        "projects/p/locations/l/publishers/google/models/gemini-2.5-flash",
        "gemini",
        "gemini-2.5-flash",
    ),
    ("qwen2.5:7b", "local", "qwen2.5:7b"),
    ("llama3.1:8b", "local", "llama3.1:8b"),  # glob in `models`: called as named
    ("local", "local", "qwen2.5:7b"),  # the judge's own name: its default model
]

BAD_FILES = [
    ({"judges": {}}, "defines no"),
    ({"judges": {"g": {**GEMINI, "api_key": "inline"}}}, "api_key_env"),
    ({"judges": {"g": {**GEMINI, "backend": "claude"}}}, "backend"),
    ({"judges": {"g": {"backend": "gemini", "model": "m"}}}, "needs a key"),
    ({"judges": {"g": {**GEMINI, "api_key_env": "UNSET_VAR"}}}, "UNSET_VAR"),
    ({"judges": {"o": {"backend": "openai", "model": "m"}}}, "base_url"),
    ({"judges": {"g": GEMINI}, "default_judge": "other"}, "default_judge"),
    ({"judges": {"g": {**GEMINI, "colour": "red"}}}, "unknown keys"),
    ({"judges": {"g": {**GEMINI, "max_concurrency": 0}}}, "max_concurrency"),
    ({"judges": {"g": GEMINI}, "retry": {"max_attempts": 0}}, "max_attempts"),
]


def load_env(env: Mapping[str, str]) -> JudgesConfig | None:
    """The configuration a server started in ``env`` would load."""
    path = env.get("EVALD_JUDGE_CONFIG")
    return load(Path(path) if path else None, None, env)


def _write(tmp_path: Path, data: object, suffix: str = ".json") -> dict[str, str]:
    path = tmp_path / f"judges{suffix}"
    path.write_text(json.dumps(data) if suffix == ".json" else str(data), encoding="utf-8")
    return {**ENV, "EVALD_JUDGE_CONFIG": str(path), "XDG_CACHE_HOME": str(tmp_path)}


@pytest.mark.parametrize(("name", "short"), SHORT_NAMES)
def test_short_model_name(name: str, short: str) -> None:
    assert short_model_name(name) == short


@pytest.mark.parametrize(("requested", "judge", "model"), RESOLVE)
def test_resolve(tmp_path: Path, requested: str, judge: str, model: str) -> None:
    env = _write(
        tmp_path, {"default_judge": "gemini", "judges": {"gemini": GEMINI, "local": LOCAL}}
    )
    config = load_env(env)
    assert config is not None
    spec, called = config.resolve(requested)
    assert (spec.name, called) == (judge, model)


def test_unknown_model_lists_the_accepted_ones(tmp_path: Path) -> None:
    config = load_env(_write(tmp_path, {"judges": {"gemini": GEMINI}}))
    assert config is not None
    with pytest.raises(LookupError, match=r"gpt-4o.*gemini-2\.5-flash"):
        config.resolve("gpt-4o")


@pytest.mark.parametrize(("data", "message"), BAD_FILES)
def test_bad_config_says_what_to_fix(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_env(_write(tmp_path, data))


def test_no_config_is_none() -> None:
    assert load_env({}) is None


def test_toml_file_and_key_file(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text("from-file\n", encoding="utf-8")
    toml = f"""
timeout_seconds = 12
[cache]
enabled = false
[judges.vllm]
backend = "openai"
model = "meta-llama/Llama-3.1-8B-Instruct"
base_url = "http://gpu:8000/v1"
api_key_file = "{key}"
structured_output = false
"""
    config = load_env(_write(tmp_path, toml, ".toml"))
    assert config is not None
    spec = config.judges["vllm"]
    assert spec.api_key is not None
    assert spec.api_key.reveal() == "from-file"
    assert (config.default_judge, config.timeout, config.cache_enabled) == ("vllm", 12.0, False)
    assert spec.structured_output is False


def test_environment_only(tmp_path: Path) -> None:
    env = {
        "EVALD_JUDGE_BACKEND": "openai",
        "EVALD_JUDGE_MODEL": "gpt-4o-mini",
        "EVALD_JUDGE_BASE_URL": "https://api.openai.com/v1",
        "EVALD_JUDGE_API_KEY": "sk-env",
        "EVALD_JUDGE_CACHE": str(tmp_path / "c.sqlite3"),
        "EVALD_JUDGE_TIMEOUT": "7.5",
    }
    config = load_env(env)
    assert config is not None
    spec, model = config.resolve("")
    assert (spec.backend, model, spec.base_url) == (
        "openai",
        "gpt-4o-mini",
        env["EVALD_JUDGE_BASE_URL"],
    )
    assert spec.api_key is not None
    assert spec.api_key.reveal() == "sk-env"
    assert config.cache_path == tmp_path / "c.sqlite3"
    assert config.cache_enabled
    assert config.timeout == 7.5


def test_cache_can_be_turned_off_by_environment(tmp_path: Path) -> None:
    env = {**_write(tmp_path, {"judges": {"g": GEMINI}}), "EVALD_JUDGE_CACHE": "off"}
    config = load_env(env)
    assert config is not None
    assert not config.cache_enabled


def test_secret_never_prints() -> None:
    secret = Secret("abc123")
    assert "abc123" not in repr(secret)
    assert "abc123" not in str(secret)
    assert "abc123" not in repr(
        load_env(
            {
                "EVALD_JUDGE_BACKEND": "gemini",
                "EVALD_JUDGE_MODEL": "m",
                "EVALD_JUDGE_API_KEY": "abc123",
            }
        )
    )


def test_judges_table_of_the_server_config_file(tmp_path: Path) -> None:
    """Every sub-table of ``[judges]`` but retry and cache is a judge."""
    table = {"default_judge": "local", "timeout_seconds": 9, "gemini": GEMINI, "local": LOCAL}
    config = load(None, {**table, "retry": {"max_attempts": 2}}, {**ENV, "XDG_CACHE_HOME": "/c"})
    assert config is not None
    assert sorted(config.judges) == ["gemini", "local"]
    assert (config.default_judge, config.timeout, config.retry.max_attempts) == ("local", 9, 2)


@pytest.mark.parametrize(
    ("use_file", "env", "judge"),
    [
        (True, {"EVALD_JUDGE_BACKEND": "gemini", "EVALD_JUDGE_MODEL": "m"}, "g"),
        (False, {"EVALD_JUDGE_BACKEND": "gemini", "EVALD_JUDGE_MODEL": "m"}, "default"),
        (False, {}, "local"),
    ],
    ids=["file-wins", "environment-over-table", "table"],
)
def test_precedence(tmp_path: Path, use_file: bool, env: dict[str, str], judge: str) -> None:
    file = tmp_path / "judges.json"
    file.write_text(json.dumps({"judges": {"g": GEMINI}}), encoding="utf-8")
    env = {**ENV, **env, "EVALD_JUDGE_API_KEY": "k"}
    config = load(file if use_file else None, {"local": LOCAL}, env)
    assert config is not None
    assert list(config.judges) == [judge]
