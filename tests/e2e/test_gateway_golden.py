"""Replays every ``tests/golden/**/*.json`` over HTTP with the gRPC golden runner's checks.

The request JSON is the body of ``POST /<version>/projects/p/locations/l:evaluateInstances``;
the reply must parse strictly as the version's EvaluateInstancesResponse and match the expected
one (numbers within float32 tolerance), or be the expected error in Google's JSON shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from evald.gateway.errors import HTTP_STATUS
from google.protobuf import json_format

from tests.e2e.test_golden import CASES, as_dict, differences, load
from tests.http_support import http_serving, post
from tests.support import MESSAGES

pytestmark = pytest.mark.usefixtures("golden_case_judge")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_serving(custom_code=True) as running:  # as the gRPC golden server
        assert running.running is not None
        yield str(running.running.http.url)


@pytest.mark.parametrize(("path", "version"), CASES)
def test_golden_over_http(url: str, path: Path, version: str) -> None:
    case = load(path)
    m = MESSAGES[version]
    status, data = post(
        url, f"/{version}/projects/p/locations/l:evaluateInstances", case["request"]
    )
    if "error" in case:
        code = case["error"]["code"]
        assert status == HTTP_STATUS[grpc.StatusCode[code]], data
        assert data["error"]["status"] == code
        if "field" in case["error"]:
            violations = [
                v
                for detail in data["error"].get("details", [])
                if detail["@type"] == "type.googleapis.com/google.rpc.BadRequest"
                for v in detail["fieldViolations"]
            ]
            assert violations, data
            assert violations[0].get("field", "") == case["error"]["field"], data
        return
    assert status == 200, data
    response = json_format.Parse(
        json.dumps(data), m.EvaluateInstancesResponse(), ignore_unknown_fields=False
    )
    expected = json_format.Parse(
        json.dumps(case["response"]), m.EvaluateInstancesResponse(), ignore_unknown_fields=False
    )
    problems = differences(as_dict(response), as_dict(expected))
    assert not problems, f"{case['description']}\n" + "\n".join(problems)
