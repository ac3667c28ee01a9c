"""``python -m bench --quick --only ray`` scores its rows both ways (no timing is checked)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.__main__ import main

try:
    import ray  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("ray is not installed (pip install 'evald[ray]')", allow_module_level=True)


def test_quick_ray_section_compares_both_engines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quick", "--only", "ray", "--out", str(tmp_path)]) == 0

    assert "### Ray engine" in capsys.readouterr().out
    (section,) = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))["sections"]
    assert section["name"] == "ray"
    cases = [row["case"] for row in section["rows"]]
    assert cases == [
        "wall time per row, ray vs local",
        "CPU per row (all processes), ray vs local",
    ]
    for row in section["rows"]:
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert "results.jsonl identical" in row["note"]
