"""Server settings: defaults < EVALD_* environment < flags, and validation."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest
from evald.cli import build_parser
from evald.config import Settings

# The defaults docs/operations.md documents.
DEFAULTS = {
    "host": "127.0.0.1",
    "port": 50051,
    "max_message_bytes": 64 * 1024 * 1024,
    "tls_cert": None,
    "tls_key": None,
    "grace_seconds": 10.0,
    "reuse_port": False,
    "log_level": "INFO",
}

PRECEDENCE = [
    # (env, flags, field, expected)
    ({}, {}, "port", 50051),
    ({"EVALD_PORT": "6000"}, {}, "port", 6000),
    ({"EVALD_PORT": "6000"}, {"port": 7000}, "port", 7000),
    ({}, {"port": 0}, "port", 0),
    ({"EVALD_PORT": "6000"}, {"port": None}, "port", 6000),  # an unset flag does not override
    ({"EVALD_PORT": ""}, {}, "port", 50051),  # an empty variable counts as unset
    ({"EVALD_HOST": "0.0.0.0"}, {}, "host", "0.0.0.0"),
    ({"EVALD_HOST": "0.0.0.0"}, {"host": "::"}, "host", "::"),
    ({"EVALD_HOST": "[::1]"}, {}, "host", "::1"),
    ({"EVALD_MAX_MESSAGE_BYTES": "1024"}, {}, "max_message_bytes", 1024),
    ({"EVALD_MAX_MESSAGE_BYTES": "1024"}, {"max_message_bytes": 2048}, "max_message_bytes", 2048),
    ({"EVALD_GRACE_SECONDS": "2.5"}, {}, "grace_seconds", 2.5),
    ({"EVALD_GRACE_SECONDS": "2.5"}, {"grace_seconds": 0.0}, "grace_seconds", 0.0),
    ({"EVALD_REUSE_PORT": "true"}, {}, "reuse_port", True),
    ({"EVALD_REUSE_PORT": "1"}, {}, "reuse_port", True),
    ({"EVALD_REUSE_PORT": "off"}, {}, "reuse_port", False),
    ({"EVALD_REUSE_PORT": "yes"}, {"reuse_port": False}, "reuse_port", False),
    ({"EVALD_LOG_LEVEL": "debug"}, {}, "log_level", "debug"),
    ({"EVALD_LOG_LEVEL": "debug"}, {"log_level": "ERROR"}, "log_level", "ERROR"),
    (
        {"EVALD_TLS_CERT": "/env/cert.pem", "EVALD_TLS_KEY": "/env/key.pem"},
        {},
        "tls_cert",
        Path("/env/cert.pem"),
    ),
    (
        {"EVALD_TLS_CERT": "/env/cert.pem", "EVALD_TLS_KEY": "/env/key.pem"},
        {"tls_cert": Path("/flag/cert.pem")},
        "tls_cert",
        Path("/flag/cert.pem"),
    ),
    # The pair may be split across sources: key from the environment, certificate from a flag.
    (
        {"EVALD_TLS_KEY": "/env/key.pem"},
        {"tls_cert": Path("/c.pem")},
        "tls_key",
        Path("/env/key.pem"),
    ),
]


@pytest.mark.parametrize(("env", "flags", "field", "expected"), PRECEDENCE)
def test_precedence(env: dict[str, str], flags: dict[str, Any], field: str, expected: Any) -> None:
    assert getattr(Settings.load(flags, env=env), field) == expected


def test_defaults() -> None:
    loaded = dataclasses.asdict(Settings.load(env={}))
    assert {name: loaded[name] for name in DEFAULTS} == DEFAULTS
    assert not Settings().tls


def test_other_variables_are_ignored() -> None:
    env = {"PORT": "1", "EVALD_UNKNOWN": "x", "evald_port": "2"}
    assert Settings.load(env=env).port == 50051


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALD_PORT", "6123")
    assert Settings.load().port == 6123


def test_tls_on_with_both_files() -> None:
    settings = Settings(tls_cert=Path("c.pem"), tls_key=Path("k.pem"))
    assert settings.tls


INVALID = [
    # (env, flags, message fragment)
    ({}, {"port": -1}, "port must be within 0..65535"),
    ({}, {"port": 65536}, "port must be within 0..65535"),
    ({"EVALD_PORT": "70000"}, {}, "port must be within 0..65535"),
    ({"EVALD_PORT": "fifty"}, {}, "EVALD_PORT='fifty' is not a valid int"),
    ({"EVALD_PORT": "1.5"}, {}, "EVALD_PORT='1.5' is not a valid int"),
    ({}, {"max_message_bytes": 0}, "max message size"),
    ({}, {"max_message_bytes": 2**31}, "max message size"),
    ({"EVALD_MAX_MESSAGE_BYTES": "-1"}, {}, "max message size"),
    ({}, {"tls_cert": Path("c.pem")}, "TLS needs both"),
    ({"EVALD_TLS_KEY": "k.pem"}, {}, "TLS needs both"),
    ({}, {"grace_seconds": -1.0}, "grace period"),
    ({}, {"grace_seconds": math.nan}, "grace period"),
    ({"EVALD_GRACE_SECONDS": "soon"}, {}, "EVALD_GRACE_SECONDS='soon' is not a valid float"),
    ({"EVALD_REUSE_PORT": "maybe"}, {}, "EVALD_REUSE_PORT='maybe' is not a valid bool"),
    ({}, {"log_level": "LOUD"}, "log level must be one of"),
    ({}, {"host": ""}, "host must not be empty"),
    ({}, {"host": "[]"}, "host must not be empty"),
    ({}, {"max_pending_calls": 0}, "max_pending_calls must be 1 or more, got 0"),
    ({"EVALD_MAX_PENDING_CALLS": "-5"}, {}, "max_pending_calls must be 1 or more"),
]


@pytest.mark.parametrize(("env", "flags", "message"), INVALID)
def test_invalid(env: dict[str, str], flags: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        Settings.load(flags, env=env)


def test_max_message_bytes_upper_bound_is_accepted() -> None:
    assert Settings(max_message_bytes=2**31 - 1).max_message_bytes == 2**31 - 1


def test_every_setting_has_a_flag() -> None:
    """The CLI passes its parsed flags straight to Settings.load: names must line up."""
    args = vars(build_parser().parse_args(["serve"]))
    del args["command"]
    assert set(args) == {
        f.name for f in dataclasses.fields(Settings) if f.metadata.get("flag") is not None
    }
    assert all(v is None for v in args.values())  # unset flags never override the environment


FLAGS = [
    (["--host", "::"], "host", "::"),
    (["--port", "0"], "port", 0),
    (["--max-message-bytes", "100"], "max_message_bytes", 100),
    (["--tls-cert", "c.pem", "--tls-key", "k.pem"], "tls_cert", Path("c.pem")),
    (["--tls-cert", "c.pem", "--tls-key", "k.pem"], "tls_key", Path("k.pem")),
    (["--grace-seconds", "0.5"], "grace_seconds", 0.5),
    (["--reuse-port"], "reuse_port", True),
    (["--no-reuse-port"], "reuse_port", False),
    (["--log-level", "DEBUG"], "log_level", "DEBUG"),
]


@pytest.mark.parametrize(("argv", "field", "expected"), FLAGS)
def test_flag_beats_environment(argv: list[str], field: str, expected: Any) -> None:
    env = {
        "EVALD_HOST": "10.0.0.1",
        "EVALD_PORT": "1234",
        "EVALD_MAX_MESSAGE_BYTES": "999",
        "EVALD_TLS_CERT": "env-c.pem",
        "EVALD_TLS_KEY": "env-k.pem",
        "EVALD_GRACE_SECONDS": "30",
        "EVALD_REUSE_PORT": "true" if expected is False else "false",
        "EVALD_LOG_LEVEL": "WARNING",
    }
    args = vars(build_parser().parse_args(["serve", *argv]))
    del args["command"]
    assert getattr(Settings.load(args, env=env), field) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ({"env": {"EVALD_CORS_ORIGIN": "https://a.example"}}, ("https://a.example",)),
        (
            {"env": {"EVALD_CORS_ORIGIN": " https://a.example/, http://localhost:3000 "}},
            ("https://a.example", "http://localhost:3000"),
        ),
        ({"flags": ["--cors-origin", "https://A.example"]}, ("https://a.example",)),
        (
            {"flags": ["--cors-origin", "https://a.example,https://b.example"]},
            ("https://a.example", "https://b.example"),
        ),
        (
            {"flags": ["--cors-origin", "https://a.example", "--cors-origin", "http://b.example"]},
            ("https://a.example", "http://b.example"),
        ),
        ({"env": {}}, ()),
    ],
)
def test_cors_origins(source: dict[str, Any], expected: tuple[str, ...]) -> None:
    flags: dict[str, Any] = {}
    if "flags" in source:
        parsed = vars(build_parser().parse_args(["serve", *source["flags"]]))
        flags = {"cors_origins": parsed["cors_origins"]}
    settings = Settings.load(flags, env=source.get("env", {}))
    assert settings.cors_origins == expected


def test_cors_origins_from_the_config_file(tmp_path: Path) -> None:
    """A list (what a TOML array gives) is taken as it is."""
    config = tmp_path / "evald.toml"
    config.write_text('cors_origins = ["https://a.example", "http://127.0.0.1:8000"]\n')
    settings = Settings.load({"config": config}, env={})
    assert settings.cors_origins == ("https://a.example", "http://127.0.0.1:8000")


@pytest.mark.parametrize(
    "origin", ["*", "https://a.example/path", "a.example", "ftp://a.example", "https://u@a.example"]
)
def test_cors_origin_must_be_an_origin(origin: str) -> None:
    with pytest.raises(ValueError, match="CORS origin must be scheme://host"):
        Settings.load(env={"EVALD_CORS_ORIGIN": origin})
