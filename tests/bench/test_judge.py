"""``python -m bench --quick --only judge`` runs its rows end to end (no timing is checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.__main__ import main


def test_quick_judge_section_writes_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quick", "--only", "judge", "--out", str(tmp_path)]) == 0

    assert "### Judge path" in capsys.readouterr().out
    (section,) = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))["sections"]
    assert section["name"] == "judge"
    cases = [row["case"] for row in section["rows"]]
    for backend in ("gemini", "openai"):
        assert cases.count(f"server CPU per judge call, {backend}") == 2  # pointwise, pairwise
        assert cases.count(f"wall time, {backend}") == 2
    assert any(case.startswith("server RSS") for case in cases)
    for row in section["rows"]:
        assert row["ours"] > 0
        assert "0 calls failed" in row["note"]
