"""The stable ``EvalTask`` with Google's own judge prompt templates, against evald and a scripted
judge, under Vertex's autorater defaults (4 samples, half of the pairwise ones flipped).

The judge is position-biased: it always prefers Response A. Flipping must turn that bias into
a TIE, as it does on Vertex AI; the pointwise metric gets the median of its 4 samples.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import serving
from tests.tls import self_signed

REPO = Path(__file__).resolve().parent.parent.parent
ROWS = 2

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(
        importlib.util.find_spec("pandas") is None,
        reason="the stable SDK's EvalTask needs pandas",
    ),
]


def biased(prompt: str) -> str:
    """Pairwise: always "A". Pointwise: 5 for the first row's response, 2 for the other."""
    if "Response B" in prompt:
        return json.dumps({"explanation": "A reads better", "pairwise_choice": "A"})
    score = 5 if "says hello" in prompt else 2
    return json.dumps({"explanation": f"fluent enough: {score}", "score": score})


@pytest.fixture(scope="module")
def run(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Any], FakeJudge]]:
    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    with running(FakeJudge(default=biased)) as judge, pytest.MonkeyPatch.context() as patch:
        configure(patch, tmp_path_factory.mktemp("judge"), judge.url, "gemini", sampling=None)
        with serving(tls_cert=cert, tls_key=key) as server:
            server_loop = server.loop
            done = subprocess.run(
                [sys.executable, "-m", "tests.official.eval_task_judge_client", server.address],
                capture_output=True,
                text=True,
                check=False,
                timeout=300,
                cwd=REPO,
                env={**os.environ, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(cert)},
            )
        server_loop.close()
        assert done.returncode == 0, done.stderr[-4000:]
        yield json.loads(done.stdout), judge


def test_pointwise_template_scores_are_read(run: tuple[dict[str, Any], FakeJudge]) -> None:
    result, _ = run
    assert [row["fluency/score"] for row in result["rows"]] == [5.0, 2.0]
    assert result["summary"]["fluency/mean"] == 3.5


def test_a_position_biased_judge_ties_under_the_default_flip(
    run: tuple[dict[str, Any], FakeJudge],
) -> None:
    result, judge = run
    assert [row["pairwise_fluency/pairwise_choice"] for row in result["rows"]] == ["TIE"] * ROWS
    assert result["summary"]["pairwise_fluency/candidate_model_win_rate"] == 0.0
    assert result["summary"]["pairwise_fluency/baseline_model_win_rate"] == 0.0
    pairwise = [c.prompt for c in judge.calls if "Response B" in c.prompt]
    assert len(pairwise) == 4 * ROWS  # Vertex's default sampling_count
    flipped = [p for p in pairwise if p.index("CANDIDATE") < p.index("BASELINE")]
    assert len(flipped) == 2 * ROWS  # half of them, the responses swapped


def test_every_pointwise_row_is_sampled_four_times(run: tuple[dict[str, Any], FakeJudge]) -> None:
    _, judge = run
    assert len([c for c in judge.calls if "Response B" not in c.prompt]) == 4 * ROWS
