"""The "models" section runs in quick mode against the reference packages (no timing is
checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import models
from bench.__main__ import main


def test_quick_models_section_runs_against_the_reference_packages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("bert_score")
    pytest.importorskip("detoxify")
    assert main(["--quick", "--only", "models", "--out", str(tmp_path)]) == 0
    assert "Model-backed metrics on CPU" in capsys.readouterr().out
    (section,) = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))["sections"]
    assert section["name"] == "models"
    cases = [row["case"] for row in section["rows"]]
    # COMET's reference lives in an environment of its own (`make bench` builds it).
    comet = ("COMET-22",) if models.comet_python() is not None else ()
    assert cases == [
        f"{metric}, {case}"
        for metric in ("BERTScore", "Toxicity (Detoxify)", *comet, "MetricX-24")
        for case in ("batch 32", "single-instance calls from 32 concurrent clients", "batch 1")
    ]
    if not comet:
        assert any("COMET not measured" in note for note in section["notes"])
    for row in section["rows"]:
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert "items per forward pass" in row["note"]
    assert any("Models (seeded random weights" in note for note in section["notes"])
