"""``evald models list``: the models directory, each model-backed metric's model, presence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evald.cli.main import main


@pytest.fixture(autouse=True)
def plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALD_METRIC_MODULES", "tests.unit.models.metric_plugin")
    monkeypatch.delenv("EVALD_MODELS_DIR", raising=False)
    monkeypatch.delenv("EVALD_CONFIG", raising=False)


BUILTIN = {
    "comet": "Unbabel/wmt22-comet-da",
    "metricx": "google/metricx-24-hybrid-large-v2p6",
    "fmeval/bertscore": "microsoft/deberta-xlarge-mnli",
    "fmeval/toxicity": "unitary/unbiased-toxic-roberta",
}
"""evald's own model-backed metrics and their default models."""


def listed(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    """The listing, with evald's own metrics checked and set aside (the plugin's remain)."""
    assert main(["models", "list", "--json", *args]) == 0
    shown: dict[str, Any] = json.loads(capsys.readouterr().out)
    own = {row["metric"]: row["model"] for row in shown["models"] if row["metric"] in BUILTIN}
    assert own == BUILTIN
    shown["models"] = [row for row in shown["models"] if row["metric"] not in BUILTIN]
    return shown


def test_a_missing_and_a_present_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = {
        "metric": "example/echo_score",
        "kind": "tests.unit.models.kinds:EchoKind",
        "model": "org/echo-model",
        "path": str(tmp_path / "org/echo-model"),
        "present": False,
    }
    shown = listed(capsys, "--models-dir", str(tmp_path))
    assert shown == {"models_dir": str(tmp_path), "models": [row]}  # the alias is not listed
    (tmp_path / "org/echo-model").mkdir(parents=True)  # a directory without files: not loadable
    assert listed(capsys, "--models-dir", str(tmp_path))["models"] == [row]
    (tmp_path / "org/echo-model/model.safetensors").write_bytes(b"")
    assert listed(capsys, "--models-dir", str(tmp_path))["models"] == [{**row, "present": True}]


def test_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALD_MODELS_DIR", str(tmp_path))
    (tmp_path / "org/echo-model").mkdir(parents=True)
    (tmp_path / "org/echo-model/config.json").write_text("{}")
    assert main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"models directory: {tmp_path}"
    assert lines[1].split() == ["METRIC", "MODEL", "PRESENT", "KIND"]
    rows = [line.split() for line in lines[2:]]
    assert [
        "example/echo_score",
        "org/echo-model",
        "yes",
        "tests.unit.models.kinds:EchoKind",
    ] in rows
    assert ["fmeval/bertscore", "microsoft/deberta-xlarge-mnli", "no"] in [r[:3] for r in rows]


def test_without_a_models_directory(capsys: pytest.CaptureFixture[str]) -> None:
    shown = listed(capsys)
    assert shown["models_dir"] is None
    assert shown["models"] == [
        {
            "metric": "example/echo_score",
            "kind": "tests.unit.models.kinds:EchoKind",
            "model": "org/echo-model",
            "path": None,
            "present": False,
        }
    ]
