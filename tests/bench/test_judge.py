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
    cases = [(row["case"], row["size"]) for row in section["rows"]]
    for backend in ("gemini", "openai"):
        for case in (f"server CPU per judge call, {backend}", f"wall time, {backend}"):
            sizes = sorted(size for name, size in cases if name == case)
            cached = ["200 concurrent single-sample pointwise calls, judge cache on, one process"]
            assert sizes == [
                "200 concurrent single-sample pointwise calls, --workers 0",
                *(cached if backend == "gemini" else []),
                "200 concurrent single-sample pointwise calls, one process",
                "50 pairwise rows x 4 samples, flip, one process",
            ], sizes
    cache_rows = [row for row in section["rows"] if "judge cache on" in row["size"]]
    assert {row["baseline_name"] for row in cache_rows} == {"the same burst, cache left out"}
    assert any(name.startswith("server RSS") for name, _ in cases)
    for row in section["rows"]:
        assert row["ours"] > 0
        assert "0 calls failed" in row["note"]
