"""``python -m bench``: sections by name, the table and JSON it writes (no timing is checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import SECTIONS, main, runner

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_writes_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quick", "--only", "metrics", "--out", str(tmp_path)]) == 0

    printed = capsys.readouterr().out
    assert "| ROUGE 1+2+L+Lsum, stemmer | long (400 words) |" in printed
    assert (tmp_path / "bench.md").read_text(encoding="utf-8").strip() in printed

    data = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))
    assert data["machine"]["cores"] >= 1
    assert data["machine"]["python"]
    (section,) = data["sections"]
    assert section["name"] == "metrics"
    cases = {(row["case"], row["size"].split()[0]) for row in section["rows"]}
    for size in ("short", "medium", "long"):
        assert ("ROUGE 1+2+L+Lsum, stemmer", size) in cases
        assert ("ROUGE-L", size) in cases
        assert ("BLEU (sentence)", size) in cases
    for row in section["rows"]:
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert row["ratio"] == pytest.approx(row["ours"] / row["baseline"])


def test_unknown_section_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--only", "nonsense"])
    assert "invalid choice" in capsys.readouterr().err


def test_sections_are_named_runners() -> None:
    assert "metrics" in SECTIONS
    assert all(callable(runner(name)) for name in SECTIONS)


def test_the_main_module_imports_no_section() -> None:
    """Spawned load processes import it again: it must stay light."""
    check = "import sys, bench.__main__; print(sorted(m for m in sys.modules if m in SECTIONS))"
    code = f"SECTIONS = {sorted(SECTIONS.values())!r}; {check}"
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert shown.stdout.strip() == "[]"
