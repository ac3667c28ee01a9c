"""The stable ``vertexai.evaluation.EvalTask`` SDK against evald serving TLS.

The SDK cannot speak plaintext, so the server gets a self-signed certificate (made here with
``cryptography``) that the SDK subprocess trusts through ``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH``.
Needs pandas (the SDK's dataset type); skipped when it is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from evald.logs import REQUEST_LOGGER
from rouge_score.rouge_scorer import RougeScorer

from tests.support import serving
from tests.tls import self_signed

REPO = Path(__file__).resolve().parent.parent.parent
DATASET = {
    "response": ["Paris", "the cat is on the mat", "The cat sat.\nThe dog ran."],
    "reference": ["Paris", "there is a cat on the mat", "The dog ran.\nThe cat sat."],
}
"""Same data as ``eval_task_client.DATASET`` (that module imports the SDK, so not imported here)."""

pytestmark = [
    pytest.mark.official,
    pytest.mark.skipif(
        importlib.util.find_spec("pandas") is None,
        reason="the stable SDK's EvalTask needs pandas",
    ),
]


def f32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


class Collect(logging.Handler):
    """Keeps the fields of evald's per-request log lines."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(dict(getattr(record, "fields", {})))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], Collect]]:
    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    collect = Collect()
    REQUEST_LOGGER.addHandler(collect)
    level = REQUEST_LOGGER.level
    REQUEST_LOGGER.setLevel(logging.INFO)
    try:
        with serving(tls_cert=cert, tls_key=key) as server:
            server_loop = server.loop
            done = subprocess.run(
                [sys.executable, "-m", "tests.official.eval_task_client", server.address],
                capture_output=True,
                text=True,
                check=False,
                timeout=300,
                cwd=REPO,
                env={**os.environ, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(cert)},
            )
        # ServerThread stops its loop without closing it; close it here so its sockets do not
        # leak into a later test as a ResourceWarning.
        server_loop.close()
        assert done.returncode == 0, done.stderr[-4000:]
        yield json.loads(done.stdout), collect
    finally:
        REQUEST_LOGGER.removeHandler(collect)
        REQUEST_LOGGER.setLevel(level)


def test_rows_come_back_in_order(run: tuple[dict[str, Any], Collect]) -> None:
    rows = run[0]["rows"]
    assert [r["response"] for r in rows] == DATASET["response"]
    assert [r["reference"] for r in rows] == DATASET["reference"]


def test_exact_match(run: tuple[dict[str, Any], Collect]) -> None:
    assert [r["exact_match/score"] for r in run[0]["rows"]] == [1.0, 0.0, 0.0]


def test_bleu(run: tuple[dict[str, Any], Collect]) -> None:
    # The stable SDK sends an empty BleuSpec: use_effective_order is false.
    expected = [
        f32(sacrebleu.sentence_bleu(p, [r], use_effective_order=False).score / 100)
        for p, r in zip(DATASET["response"], DATASET["reference"], strict=True)
    ]
    got = [r["bleu/score"] for r in run[0]["rows"]]
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_rouge_l_sum(run: tuple[dict[str, Any], Collect]) -> None:
    scorer = RougeScorer(["rougeLsum"])
    expected = [
        f32(scorer.score(target=r, prediction=p)["rougeLsum"].fmeasure)
        for p, r in zip(DATASET["response"], DATASET["reference"], strict=True)
    ]
    got = [r["rouge_l_sum/score"] for r in run[0]["rows"]]
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_summary_has_no_nan(run: tuple[dict[str, Any], Collect]) -> None:
    summary = run[0]["summary"]
    assert summary["row_count"] == 3
    for metric in ("exact_match", "bleu", "rouge_l_sum"):
        assert summary[f"{metric}/mean"] is not None, metric


def test_sdk_calls_v1_one_instance_per_request(run: tuple[dict[str, Any], Collect]) -> None:
    lines = run[1].lines
    assert len(lines) == 9, lines  # 3 metrics x 3 rows
    assert {line["method"] for line in lines} == {
        "/google.cloud.aiplatform.v1.EvaluationService/EvaluateInstances"
    }
    assert {line["code"] for line in lines} == {"OK"}
    assert {line["instances"] for line in lines} == {1}
