"""Judges: the judge configuration of one server, its file watched, its environment read once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evald.errors import FailedPrecondition
from evald.judges import Judges

GEMINI = {"backend": "gemini", "model": "gemini-2.5-flash", "api_key_env": "K"}
ENV = {"K": "secret-value"}


def write(path: Path, model: str) -> None:
    judges = {"judges": {"g": {**GEMINI, "model": model}}, "cache": {"enabled": False}}
    path.write_text(json.dumps(judges), encoding="utf-8")


def test_a_missing_file_means_no_judge_and_says_how_to_configure(tmp_path: Path) -> None:
    judges = Judges(tmp_path / "judges.json", None, ENV)
    with pytest.raises(FailedPrecondition) as err:
        judges.runtime()
    assert str(tmp_path / "judges.json") in err.value.message
    assert "EVALD_JUDGE_CONFIG" in err.value.message


def test_the_file_is_watched(tmp_path: Path) -> None:
    path = tmp_path / "judges.json"
    judges = Judges(path, None, ENV)
    write(path, "first")
    first = judges.runtime()
    assert first.config.judges["g"].model == "first"
    assert judges.runtime() is first  # unchanged file: the same runtime
    write(path, "second")
    second = judges.runtime()
    assert second is not first
    assert second.config.judges["g"].model == "second"
    assert first.retired
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(FailedPrecondition, match="invalid"):
        judges.runtime()
    path.unlink()
    with pytest.raises(FailedPrecondition, match="none is configured"):
        judges.runtime()


def test_the_environment_is_read_when_built_not_per_call() -> None:
    env = {"EVALD_JUDGE_BACKEND": "gemini", "EVALD_JUDGE_MODEL": "m", "EVALD_JUDGE_API_KEY": "k"}
    judges = Judges(None, None, env)
    runtime = judges.runtime()
    env["EVALD_JUDGE_MODEL"] = "other"
    assert judges.runtime() is runtime
    assert runtime.config.judges["default"].model == "m"


def test_no_configuration_at_all() -> None:
    with pytest.raises(FailedPrecondition, match="none is configured"):
        Judges(None, None, {}).runtime()


def test_the_judges_table_of_the_config_file() -> None:
    judges = Judges(None, {"g": GEMINI, "cache": {"enabled": False}}, ENV)
    assert list(judges.runtime().config.judges) == ["g"]
