"""The google-genai based Vertex SDK (``vertexai.Client().evals``) against the HTTP gateway.

The SDK speaks REST (slash before the colon, mixed camel/snake case keys) and sends the computed
metrics as legacy ``*_input`` members, one instance per call; its summary means must equal the
reference libraries' scores.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu
from rouge_score.rouge_scorer import RougeScorer

from tests.http_support import http_serving, http_url

REPO = Path(__file__).resolve().parent.parent.parent
ROWS = list(
    zip(
        ["Paris", "four is the answer", "The sky is blue."],
        ["Paris", "the answer is four", "Blue, mostly."],
        strict=True,
    )
)
"""(response, reference) pairs: the same data as ``genai_evals_client.ROWS``."""

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(
        importlib.util.find_spec("pandas") is None, reason="the SDK's evaluate needs pandas"
    ),
]


def expected() -> dict[str, float]:
    rouge1 = RougeScorer(["rouge1"])
    rouge_lsum = RougeScorer(["rougeLsum"])
    return {
        "exact_match": statistics.mean(float(r == ref) for r, ref in ROWS),
        # The SDK sends an empty BleuSpec: no effective order.
        "bleu": statistics.mean(
            sacrebleu.sentence_bleu(r, [ref], use_effective_order=False).score / 100
            for r, ref in ROWS
        ),
        "rouge_1": statistics.mean(
            rouge1.score(target=ref, prediction=r)["rouge1"].fmeasure for r, ref in ROWS
        ),
        "rouge_l_sum": statistics.mean(
            rouge_lsum.score(target=ref, prediction=r)["rougeLsum"].fmeasure for r, ref in ROWS
        ),
    }


def test_genai_evals_evaluate_matches_reference_libraries() -> None:
    with http_serving() as running:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("genai_evals_client.py")),
             http_url(running) + "/"],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=REPO,
            check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    for name, mean in expected().items():
        assert summary[name]["errors"] == 0, (name, summary)
        assert summary[name]["mean"] == pytest.approx(mean, rel=1e-6, abs=1e-6), name
