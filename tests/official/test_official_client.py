"""The official google-cloud-aiplatform GAPIC clients (v1beta1 and v1) against a real evald.

The clients run in a subprocess (``official_client.py``; the SDK and our generated modules cannot
share a process) and report one result per check; each check is one test here, so a failure
names the metric, the API version and the scores.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.official.cases import check_ids
from tests.support import ServerThread

REPO = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.official


@pytest.fixture(scope="module")
def report(server: ServerThread) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.official.official_client", server.address],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_official_sdk_ran(report: dict[str, Any]) -> None:
    assert report["sdk"] == "2.7.0"
    assert sorted(report["checks"]) == sorted(check_ids())


@pytest.mark.parametrize("check", check_ids())
def test_official_client(report: dict[str, Any], check: str) -> None:
    result = report["checks"][check]
    assert result["ok"], result["detail"]
