"""The ``--config`` file: precedence defaults < file < EVALD_* < flags, types, relative paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evald.app import App
from evald.cli import build_parser
from evald.config import Settings

TOML = """
host = "0.0.0.0"
port = 6001
http_port = 8081
grace_seconds = 3
reuse_port = true
auth_keys_file = "secrets/keys.toml"
max_instances = 500
metrics_port = 9091
"""


def write(tmp_path: Path, text: str, name: str = "evald.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_file_values(tmp_path: Path) -> None:
    path = write(tmp_path, TOML)
    settings = Settings.load({"config": path}, env={})
    assert (settings.host, settings.port, settings.http_port) == ("0.0.0.0", 6001, 8081)
    assert settings.grace_seconds == 3.0
    assert isinstance(settings.grace_seconds, float)
    assert settings.reuse_port is True
    assert settings.auth_keys_file == (tmp_path / "secrets" / "keys.toml").resolve()
    assert (settings.max_instances, settings.metrics_port) == (500, 9091)
    assert settings.config == path


PRECEDENCE = [
    # (env, flags, field, expected)
    ({}, {}, "port", 6001),
    ({"EVALD_PORT": "7000"}, {}, "port", 7000),
    ({"EVALD_PORT": "7000"}, {"port": 7001}, "port", 7001),
    ({}, {"port": 7002}, "port", 7002),
    ({}, {}, "log_level", "INFO"),  # not in the file: the default
    ({"EVALD_MAX_INSTANCES": "9"}, {}, "max_instances", 9),
]


@pytest.mark.parametrize(("env", "flags", "field", "expected"), PRECEDENCE)
def test_precedence(
    tmp_path: Path, env: dict[str, str], flags: dict[str, Any], field: str, expected: Any
) -> None:
    path = write(tmp_path, TOML)
    via_flag = Settings.load({"config": path, **flags}, env=env)
    via_env = Settings.load(flags, env={"EVALD_CONFIG": str(path), **env})
    assert getattr(via_flag, field) == getattr(via_env, field) == expected


def test_json_and_dashed_names(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps({"http-port": 1234, "tracing": True}), "evald.json")
    settings = Settings.load({"config": path}, env={})
    assert (settings.http_port, settings.tracing) == (1234, True)


def test_cli_flag(tmp_path: Path) -> None:
    path = write(tmp_path, TOML)
    args = vars(build_parser().parse_args(["serve", "--config", str(path), "--port", "1"]))
    del args["command"]
    settings = Settings.load(args, env={})
    assert (settings.port, settings.http_port) == (1, 8081)


BAD = [
    # (file text, message fragment)
    ("colour = 'red'", "unknown setting 'colour'"),
    ("port = '50051'", "port = '50051' is not a valid int"),
    ("port = true", "is not a valid int"),
    ("reuse_port = 1", "is not a valid bool"),
    ("grace_seconds = 'x'", "is not a valid float"),
    ("port = 70000", "port must be within 0..65535"),  # validated like any other source
    ("config = 'other.toml'", "unknown setting 'config'"),
    ("port = ", "is not valid"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=message):
        Settings.load({"config": path}, env={})


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read config file"):
        Settings.load({"config": tmp_path / "absent.toml"}, env={})


def test_example_config_is_valid() -> None:
    """The example shipped in deploy/ loads (relative paths resolve beside it)."""
    example = Path(__file__).parents[3] / "deploy" / "evald.toml"
    settings = Settings.load({"config": example}, env={})
    assert settings.http_port == 8080
    assert settings.metrics_port == 9090


JUDGES_TOML = """
port = 6002

[judges]
default_judge = "local"

[judges.local]
backend = "openai"
model = "qwen2.5:7b"
base_url = "http://127.0.0.1:11434/v1"

[judges.cache]
enabled = false
"""


def test_judges_table(tmp_path: Path) -> None:
    settings = Settings.load({"config": write(tmp_path, JUDGES_TOML), "data_dir": tmp_path}, env={})
    assert settings.judges == {
        "default_judge": "local",
        "local": {
            "backend": "openai",
            "model": "qwen2.5:7b",
            "base_url": "http://127.0.0.1:11434/v1",
        },
        "cache": {"enabled": False},
    }
    config = App.build(settings, env={}).services.judges.runtime().config
    assert (list(config.judges), config.default_judge, config.cache_enabled) == (
        ["local"],
        "local",
        False,
    )


def test_judges_must_be_a_table(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="judges must be a table"):
        Settings.load({"config": write(tmp_path, 'judges = "x"\n')}, env={})
