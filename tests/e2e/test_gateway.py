"""The HTTP gateway end to end: a real server with ``http_port=0``, both transports compared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from evald.config import Settings
from evald.gateway import start_forwarding
from google.protobuf import json_format

from tests.http_support import http_serving, post, request
from tests.support import MESSAGES, ServerThread, stub

EXACT = {
    "exactMatchInput": {
        "metricSpec": {},
        "instances": [
            {"prediction": "Paris", "reference": "Paris"},
            {"prediction": "Paris", "reference": "paris"},
        ],
    }
}
EXPECTED = {"exactMatchResults": {"exactMatchMetricValues": [{"score": 1.0}, {"score": 0.0}]}}


@pytest.fixture(scope="module")
def both() -> Iterator[ServerThread]:
    """One server answering gRPC and HTTP."""
    with http_serving() as running:
        yield running


@pytest.fixture(scope="module")
def url(both: ServerThread) -> str:
    assert both.running is not None
    assert both.running.http is not None
    return str(both.running.http.url)


PATHS = [
    "/v1beta1/projects/p/locations/us-central1:evaluateInstances",
    "/v1beta1/projects/p/locations/us-central1:evaluateInstances?$alt=json;enum-encoding=int",
    "/v1beta1/projects/p/locations/us-central1:evaluateInstances?%24alt=json%3Benum-encoding%3Dint",
    "/v1beta1/projects/p/locations/us-central1:evaluateInstances?alt=json&key=ignored",
    "/v1beta1/projects/p/locations/us-central1/:evaluateInstances",
    "/v1beta1:evaluateInstances",
    "/v1beta1/:evaluateInstances",
    "/v1/projects/p/locations/l:evaluateInstances?$alt=json;enum-encoding=int",
    "/v1/projects/p/locations/l/:evaluateInstances",
    "/v1:evaluateInstances",
]


@pytest.mark.parametrize("path", PATHS)
def test_url_spellings(url: str, path: str) -> None:
    assert post(url, path, EXACT) == (200, EXPECTED)


def test_genai_sdk_body_shape(url: str) -> None:
    # What the google-genai based SDK posts: slash before the colon, camelCase on top,
    # snake_case nested, a field our proto does not know, API-key header on the key path.
    body = {
        "rougeInput": {
            "metric_spec": {"rouge_type": "rouge1", "use_stemmer": False},
            "instances": [{"prediction": "a b c", "reference": "a b d"}],
        },
        "allowCrossRegionModel": True,
    }
    for path, headers in [
        ("/v1beta1/projects/p/locations/us-central1/:evaluateInstances", {}),
        ("/v1beta1/:evaluateInstances", {"x-goog-api-key": "some-key"}),
    ]:
        status, data = post(url, path, body, **headers)
        assert status == 200, data
        # rouge1 F-measure: 2 shared unigrams of 3 each → 2/3 (within float32).
        (value,) = data["rougeResults"]["rougeMetricValues"]
        assert value["score"] == pytest.approx(2 / 3, rel=1e-6)


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_same_answer_as_grpc(both: ServerThread, url: str, version: str) -> None:
    m = MESSAGES[version]
    request_message = json_format.ParseDict(EXACT, m.EvaluateInstancesRequest())
    with grpc.insecure_channel(both.address) as channel:
        over_grpc = stub(channel, version).EvaluateInstances(request_message)
    status, data = post(url, f"/{version}/projects/p/locations/l:evaluateInstances", EXACT)
    assert status == 200
    assert data == json_format.MessageToDict(over_grpc)


ERRORS = [
    # (path, body, HTTP status, gRPC code name, first violation field or None)
    ("/v1beta1:evaluateInstances", {}, 400, "INVALID_ARGUMENT", "metric_inputs"),
    ("/v1beta1:evaluateInstances", b"{nope", 400, "INVALID_ARGUMENT", ""),
    ("/v1beta1:evaluateInstances", b"[]", 400, "INVALID_ARGUMENT", ""),
    (
        "/v1beta1:evaluateInstances",
        {"exactMatchInput": {"instances": [{"prediction": 1, "reference": "x"}]}},
        400,
        "INVALID_ARGUMENT",
        "exact_match_input.instances[0].prediction",
    ),
    (
        "/v1beta1:evaluateInstances",
        {"exactMatchInput": {"instances": [{"prediction": "x"}]}},
        400,
        "INVALID_ARGUMENT",
        "exact_match_input.instances[0].reference",
    ),
    (
        "/v1beta1:evaluateInstances",
        {"cometInput": {"instance": {"prediction": "a", "reference": "a", "source": "a"}}},
        400,
        "FAILED_PRECONDITION",
        None,
    ),
    ("/v1beta1/projects/p/locations/l:evaluateDataset", {}, 400, "INVALID_ARGUMENT", "metrics"),
    ("/v1beta1:evaluateDataset", {}, 400, "INVALID_ARGUMENT", "metrics"),
    ("/v1/projects/p/locations/l:evaluateDataset", {}, 404, "NOT_FOUND", None),
    ("/v2:evaluateInstances", {}, 404, "NOT_FOUND", None),
]


@pytest.mark.parametrize(("path", "body", "http", "code", "field"), ERRORS)
def test_errors(url: str, path: str, body: Any, http: int, code: str, field: str | None) -> None:
    status, data = post(url, path, body)
    assert status == http
    error = data["error"]
    assert (error["code"], error["status"]) == (http, code)
    assert error["message"]
    assert "Traceback" not in json.dumps(data)
    if field is not None:
        (detail,) = error["details"]
        assert detail["@type"] == "type.googleapis.com/google.rpc.BadRequest"
        assert detail["fieldViolations"][0].get("field", "") == field  # "" is omitted


def test_wrong_method(url: str) -> None:
    status, data, headers = request(url, "GET", "/v1beta1:evaluateInstances")
    assert status == 405
    assert data["error"]["code"] == 405
    assert headers["allow"] == "POST"


def test_zero_score_is_present(url: str) -> None:
    body = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "b"}]}}
    _, data = post(url, "/v1beta1:evaluateInstances", body)
    assert data["exactMatchResults"]["exactMatchMetricValues"] == [{"score": 0.0}]


def test_health_and_openapi(url: str) -> None:
    assert request(url, "GET", "/healthz")[:2] == (200, {"status": "SERVING"})
    status, document, _ = request(url, "GET", "/openapi.json")
    assert status == 200
    assert "/v1beta1:evaluateInstances" in document["paths"]
    assert document["security"][0] == {}  # a server without keys: calls need none


def test_body_limit() -> None:
    with http_serving(max_http_body_bytes=100) as small:
        assert small.running is not None
        status, data = post(small.running.http.url, "/v1beta1:evaluateInstances", EXACT)
    assert status == 413
    assert data["error"]["status"] == "RESOURCE_EXHAUSTED"


def test_forwarding_gateway_preserves_status_and_details(both: ServerThread) -> None:
    settings = Settings(http_port=0)
    gateway = both.call(start_forwarding(settings, both.address))
    try:
        base = gateway.url
        assert post(base, "/v1beta1/projects/p/locations/l:evaluateInstances", EXACT) == (
            200,
            EXPECTED,
        )
        status, data = post(base, "/v1beta1:evaluateInstances", {"exactMatchInput": {}})
        assert status == 400
        (detail,) = data["error"]["details"]
        assert detail["fieldViolations"][0]["field"] == "exact_match_input.instances"
        assert post(base, "/v1beta1:evaluateDataset", {})[0] == 400
        assert request(base, "GET", "/healthz")[:2] == (200, {"status": "SERVING"})
    finally:
        both.call(gateway.stop(0))


def test_forwarding_gateway_to_a_dead_target_is_unavailable(both: ServerThread) -> None:
    gateway = both.call(start_forwarding(Settings(http_port=0), "127.0.0.1:1"))
    try:
        status, data = post(gateway.url, "/v1beta1:evaluateInstances", EXACT)
        assert (status, data["error"]["status"]) == (503, "UNAVAILABLE")
        assert request(gateway.url, "GET", "/healthz")[:2] == (503, {"status": "NOT_SERVING"})
    finally:
        both.call(gateway.stop(0))


def test_shared_graceful_shutdown() -> None:
    with http_serving() as running:
        assert running.running is not None
        http = running.running.http
        running.call(running.running.stop(0))
        running.running = None  # already stopped
    assert http.stopped
    with pytest.raises(ConnectionRefusedError):
        request(http.url, "GET", "/healthz")
