"""The MetricRegistry service over the HTTP gateway: routes come from its google.api.http rules."""

from __future__ import annotations

from pathlib import Path

from tests.http_support import http_serving, http_url, post, request

PARENT = "projects/p/locations/us-central1"


def test_registry_crud_and_listing_over_http(tmp_path: Path) -> None:
    with http_serving(data_dir=tmp_path) as running:
        base = http_url(running)
        status, listed, _ = request(base, "GET", "/v1beta1/predefinedMetrics")
        assert status == 200
        assert "nemo/accuracy" in [m["name"] for m in listed["metrics"]]

        status, created = post(
            base,
            f"/v1beta1/{PARENT}/evaluationMetrics",
            {"evaluationMetricId": "shouted", "metric": {"exactMatchSpec": {}}},
        )
        assert status == 200, created
        name = f"{PARENT}/evaluationMetrics/shouted"
        assert created["name"] == name

        status, again = post(
            base,
            f"/v1beta1/{PARENT}/evaluationMetrics",
            {"evaluationMetricId": "shouted", "metric": {"exactMatchSpec": {}}},
        )
        assert status == 409
        assert again["error"]["status"] == "ALREADY_EXISTS"

        status, got, _ = request(base, "GET", f"/v1beta1/{name}")
        assert status == 200
        assert "exactMatchSpec" in got["metric"]

        status, page, _ = request(base, "GET", f"/v1beta1/{PARENT}/evaluationMetrics")
        assert status == 200
        assert [m["name"] for m in page["evaluationMetrics"]] == [name]

        body = {
            "metricSources": [{"metricResourceName": name}],
            "instance": {"response": {"text": "a"}, "reference": {"text": "a"}},
        }
        status, evaluated = post(base, f"/v1beta1/{PARENT}:evaluateInstances", body)
        assert status == 200
        assert evaluated["metricResults"][0]["score"] == 1.0

        status, _, _ = request(base, "DELETE", f"/v1beta1/{name}")
        assert status == 200
        status, missing, _ = request(base, "GET", f"/v1beta1/{name}")
        assert status == 404
        assert missing["error"]["status"] == "NOT_FOUND"
