"""The official GAPIC clients with ``transport="rest"`` against the HTTP gateway.

Every official-client case (``tests/official/cases.py``) is called over REST and over gRPC by the
same official client, in a subprocess; both must give the same outcome, and hand-worked scores
must match. Errors must map to the api_core classes the REST client picks from HTTP statuses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.http_support import http_serving
from tests.official.cases import CASES

pytestmark = pytest.mark.official

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    with http_serving() as running:
        assert running.running is not None
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.official.rest_client",
                running.address,
                running.running.http.url,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


CHECKS = [f"{c.id}-{v}" for c in CASES for v in c.versions]
EXPECTED = {f"{c.id}-{v}": c.expected for c in CASES for v in c.versions if c.expected is not None}


@pytest.mark.parametrize("check", CHECKS)
def test_rest_matches_grpc(report: dict[str, Any], check: str) -> None:
    outcome = report[check]
    assert outcome["rest"] == outcome["grpc"]
    assert "response" in outcome["rest"], outcome["rest"]
    if check in EXPECTED:
        (result,) = outcome["rest"]["response"].values()
        (values,) = result.values()
        scores = [v["score"] for v in values]
        assert scores == pytest.approx(EXPECTED[check], rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize(
    ("check", "rest_class", "http", "field"),
    [
        ("error/no_metric_input", "BadRequest", 400, "metric_inputs"),
        ("error/missing_reference", "BadRequest", 400, "exact_match_input.instances[0].reference"),
        ("error/pending_comet", "BadRequest", 400, None),
    ],
)
def test_errors(
    report: dict[str, Any], version: str, check: str, rest_class: str, http: int, field: str | None
) -> None:
    outcome = report[f"{check}-{version}"]
    assert outcome["rest"]["error"] == rest_class
    assert outcome["rest"]["http"] == outcome["grpc"]["http"] == http
    assert outcome["rest"]["fields"] == outcome["grpc"]["fields"]
    if field is not None:
        assert outcome["rest"]["fields"][0] == field


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_judge_input_fails_alike(report: dict[str, Any], version: str) -> None:
    # MethodNotImplemented (501) while no judge capability exists; with judges but none
    # configured it becomes a FAILED_PRECONDITION (400). Either way both transports agree.
    outcome = report[f"error/judge-{version}"]
    assert "error" in outcome["rest"]
    assert outcome["rest"]["http"] == outcome["grpc"]["http"]
    assert outcome["rest"]["error"] in ("MethodNotImplemented", "BadRequest")


@pytest.mark.parametrize(
    ("check", "rest_class", "http", "field"),
    [
        ("rubrics/no_contents", "BadRequest", 400, "contents"),
        ("rubrics/no_judge", "BadRequest", 400, None),  # FAILED_PRECONDITION
    ],
)
def test_generate_instance_rubrics_fails_alike(
    report: dict[str, Any], check: str, rest_class: str, http: int, field: str | None
) -> None:
    outcome = report[f"{check}-v1beta1"]
    assert outcome["rest"]["error"] == rest_class, outcome
    assert outcome["rest"]["http"] == outcome["grpc"]["http"] == http
    assert outcome["rest"]["fields"] == outcome["grpc"]["fields"]
    if field is not None:
        assert outcome["rest"]["fields"][0] == field
