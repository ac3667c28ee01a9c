"""NeMo Evaluator's routes at the HTTP level: keys checked before any work, FastAPI's error
shapes for unknown paths, wrong methods and bodies that are not JSON, and paging."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.http_support import http_serving, http_url, request
from tests.support import ServerThread

KEY = "evald-test-NEMO-key-4b7e21"
CONFIG = {"type": "custom", "tasks": {"t": {"type": "data", "metrics": {
    "em": {"type": "em", "params": {"ground_truth": "{{item.answer}}"}}}}}}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    keys = tmp_path_factory.mktemp("keys") / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "ci"\nkey = "{KEY}"\n', encoding="utf-8")
    data = tmp_path_factory.mktemp("data")
    with http_serving(auth_keys_file=keys, data_dir=data) as running:
        yield running


AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/evaluation/jobs"), ("POST", "/v1/evaluation/live"),
     ("GET", "/v1/evaluation/configs/default/x"), ("DELETE", "/v1/evaluation/jobs/eval-1")],
)  # fmt: skip
def test_no_key_no_work(server: ServerThread, method: str, path: str) -> None:
    status, body, _ = request(http_url(server), method, path, CONFIG)
    assert status == 401
    assert "API key" in body["detail"]


def test_errors_in_fastapi_shapes(server: ServerThread) -> None:
    url = http_url(server)
    status, body, _ = request(url, "GET", "/v1/evaluation/nothing", headers=AUTH)
    assert (status, body) == (404, {"detail": "Not Found"})
    status, body, headers = request(url, "PUT", "/v1/evaluation/jobs", headers=AUTH)
    assert (status, body["detail"]) == (405, "Method Not Allowed")
    assert headers["allow"] == "GET, POST"
    status, body, _ = request(url, "POST", "/v1/evaluation/live", b"{not json", AUTH)
    assert status == 422
    assert body["detail"][0]["loc"] == ["body"]
    deep = b'{"config": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    status, body, _ = request(url, "POST", "/v1/evaluation/live", deep, AUTH)
    assert status == 422
    status, body, _ = request(url, "GET", "/v1/evaluation/jobs/eval-missing", headers=AUTH)
    assert status == 404
    assert "eval-missing" in body["detail"]
    status, body, _ = request(url, "GET", "/v1/evaluation/configs?page_size=0", headers=AUTH)
    assert status == 422
    assert body["detail"][0]["loc"] == ["body", "page_size"]


def test_live_data_task_over_raw_http(server: ServerThread) -> None:
    rows = [{"output": "Paris", "answer": "paris"}, {"output": "Lyon", "answer": "Paris"}]
    status, body, _ = request(
        http_url(server), "POST", "/v1/evaluation/live",
        {"config": CONFIG, "target": {"type": "rows", "rows": rows}}, AUTH,
    )  # fmt: skip
    assert status == 200, body
    em = body["result"]["tasks"]["t"]["metrics"]["em"]["scores"]["em"]
    assert em["value"] == 0.5
    assert em["stats"]["count"] == 2


def test_paging(server: ServerThread, tmp_path: Path) -> None:
    url = http_url(server)
    for i in range(5):
        status, body, _ = request(
            url, "POST", "/v1/evaluation/configs", {**CONFIG, "name": f"c{i}", "namespace": "pg"},
            AUTH,
        )  # fmt: skip
        assert status == 200, body
    query = "filter[namespace]=pg&page=2&page_size=2&sort=created_at"
    status, body, _ = request(url, "GET", f"/v1/evaluation/configs?{query}", headers=AUTH)
    assert status == 200
    assert [c["name"] for c in body["data"]] == ["c2", "c3"]
    assert body["pagination"] == {"page": 2, "page_size": 2, "current_page_size": 2,
                                  "total_pages": 3, "total_results": 5}  # fmt: skip


def test_hf_dataset_without_a_data_store_fails_at_once(server: ServerThread) -> None:
    job = {
        "config": {"type": "custom", "tasks": {"t": {
            "type": "data", "dataset": {"files_url": "hf://datasets/default/qa"},
            "metrics": CONFIG["tasks"]["t"]["metrics"]}}},  # type: ignore[index]
        "target": {"type": "model",
                   "model": {"api_endpoint": {"url": "http://m", "model_id": "x"}}},
    }  # fmt: skip
    status, body, _ = request(http_url(server), "POST", "/v1/evaluation/jobs", job, AUTH)
    assert status == 400
    assert "--hf-endpoint" in body["detail"]


def test_similarity_groups_pool_every_task(server: ServerThread) -> None:
    """``groups.evaluation`` holds each score over the rows of all tasks, whatever each task
    calls its metric; a row without output or prompt errs alone."""
    rows = [
        {"input": "q1", "reference": "Paris", "output": "Paris"},
        {"input": "q2", "reference": "Rome", "output": "Oslo"},
        {"reference": "Bern"},
    ]
    tasks = {
        "a": {"type": "default", "metrics": {"exact": {"type": "em"}}},
        "b": {"type": "default", "metrics": {"my-em": {"type": "em"}}},
    }
    status, body, _ = request(
        http_url(server), "POST", "/v1/evaluation/live",
        {"config": {"type": "similarity_metrics", "tasks": tasks},
         "target": {"type": "rows", "rows": rows}}, AUTH,
    )  # fmt: skip
    assert status == 200, body
    result = body["result"]
    assert result["tasks"]["a"]["data"] == {"rows": 3, "rows_with_errors": 1}
    em = result["groups"]["evaluation"]["metrics"]["evaluation"]["scores"]["em_score"]
    assert (em["value"], em["stats"]["count"]) == (0.5, 4)
