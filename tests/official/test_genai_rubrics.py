"""The genai SDK's rubric flow through the HTTP gateway, with a scripted judge: unchanged SDK code
generates rubrics (``generate_rubrics``: GenerateInstanceRubrics), then ``evaluate`` judges
exactly those rubrics (the instance's ``rubric_groups``), with no second generation.

The judge writes three rubrics per prompt (HIGH, LOW, MEDIUM importance) and meets all but the
one about citing a source: each case scores (3 + 2) / (3 + 1 + 2) = 5/6.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_rubrics import critique_answer
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.http_support import http_serving, http_url

REPO = Path(__file__).resolve().parent.parent.parent
ROWS = ("ROW-1", "ROW-2")
RESPONSES = {"ROW-1": "Paris is the capital.", "ROW-2": "Tokyo is the capital."}

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(
        importlib.util.find_spec("pandas") is None, reason="the SDK's evaluate needs pandas"
    ),
]


def written(row: str) -> list[dict[str, str]]:
    """The rubrics the judge writes for the prompt of ``row``."""
    return [
        {"description": f"Does the {row} response name the capital?", "type": "CONTENT",
         "importance": "HIGH"},
        {"description": f"Does the {row} response cite a source?", "type": "SOURCING",
         "importance": "low"},
        {"description": f"Is the {row} response polite?", "type": "TONE", "importance": "Medium"},
    ]  # fmt: skip


def answer(prompt: str) -> str:
    found = re.search(r"ROW-\d", prompt)
    row = found.group(0) if found else "ROW-?"
    if "# Rubric rules" in prompt:
        return json.dumps({"rubrics": written(row)})
    if '"verdicts"' in prompt:
        return critique_answer(prompt)
    return json.dumps({"score": 0, "explanation": "unexpected prompt"})


def test_generate_rubrics_then_evaluate_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running(FakeJudge(default=answer)) as judge, http_serving() as server:
        configure(monkeypatch, tmp_path, judge.url)
        done = subprocess.run(
            [sys.executable, "-m", "tests.official.genai_rubrics_client", http_url(server) + "/"],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=REPO,
            check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])

    # generate_rubrics: one GenerateInstanceRubrics call per row, rubrics with type and importance.
    for generated in (out["generated"], out["custom_generated"]):
        assert generated == [
            [
                {"id": str(i), "text": r["description"], "type": r["type"],
                 "importance": r["importance"].upper()}
                for i, r in enumerate(written(row), start=1)
            ]
            for row in ROWS
        ]  # fmt: skip
    generations = [c.prompt for c in judge.calls if "# Rubric rules" in c.prompt]
    assert len(generations) == 4  # 2 rows x 2 generate_rubrics calls; evaluate generated none
    custom = [p for p in generations if p.startswith("CUSTOM-TEMPLATE Write checks for: ROW-")]
    assert len(custom) == 2
    assert all("exactly one of: CONTENT, SOURCING, TONE." in p for p in custom)

    # evaluate: the generated rubrics were judged, weighted by their importance.
    assert out["metric"].startswith("general_quality")
    for results in (out["predefined"], out["llm"]):
        for row, case in zip(ROWS, results, strict=True):
            assert case["error"] is None, case
            assert case["score"] == pytest.approx(5 / 6, abs=1e-6)
            assert case["verdicts"] == [
                {"text": r["description"], "verdict": "cite" not in r["description"]}
                for r in written(row)
            ]
    critiques = [c.prompt for c in judge.calls if '"verdicts"' in c.prompt]
    assert critiques
    for prompt in critiques:
        row = "ROW-1" if "ROW-1" in prompt else "ROW-2"
        assert RESPONSES[row] in prompt
        for i, rubric in enumerate(written(row), start=1):
            assert f"[{i}] {rubric['description']}" in prompt
    assert sum(p.startswith("CUSTOM-CRITIQUE ROW-") for p in critiques) >= 2
