"""The runs API and the UI's files through a real server's HTTP gateway: imports (JSON and
multipart), a dataset job as a run, summary, rows, one row, comparison, errors; the UI's
headers and the CSRF guard (authentication off: the guard holds without keys)."""

from __future__ import annotations

import http.client
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
from evald.config import Settings
from evald.gateway import start_forwarding
from evald.ui.static import CONTENT_SECURITY_POLICY
from evald.ui.upstream import upstreams
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.http_support import http_url, request
from tests.support import ServerThread, serving, stub

RUNS = "/v1/evald/runs"


def record(i: int, prompt: str, response: str, score: float | None) -> dict[str, Any]:
    error = None if score is not None else {"code": "INVALID_ARGUMENT", "message": "no ref"}
    return {
        "row": i,
        "input": {"prompt": prompt, "response": response, "category": "even" if i % 2 else "odd"},
        "results": [{"metric": "exact_match", "score": score, "explanation": None, "error": error}],
    }


A = [record(0, "q0", "Paris", 1.0), record(1, "q1", "Lyon", 0.0), record(2, "q2", "x", None)]
B = [record(0, "q0", "Paris", 1.0), record(1, "q1", "Paris", 1.0), record(2, "q2", "y", 0.0)]


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.getbasetemp()
    with serving(
        http_port=0, data_dir=base / "runs-data", dataset_root=base, output_root=base
    ) as running:
        yield running


@pytest.fixture(scope="module")
def url(server: ServerThread) -> str:
    return http_url(server)


@pytest.fixture(scope="module")
def runs(url: str) -> dict[str, str]:
    made = {}
    for name, records in (("a", A), ("b", B)):
        status, data, _ = request(url, "POST", RUNS, {"name": name, "results": jsonl(records)})
        assert status == 201, data
        made[name] = data["id"]
    return made


def get(url: str, path: str) -> tuple[int, Any]:
    status, data, _ = request(url, "GET", path)
    return status, data


def test_list_and_summary(url: str, runs: dict[str, str]) -> None:
    status, data = get(url, RUNS)
    assert status == 200
    listed = {run["id"]: run for run in data["runs"]}
    assert {runs["a"], runs["b"]} <= set(listed)
    a = listed[runs["a"]]
    assert (a["source"], a["status"], a["progress"]) == (
        "import",
        "SUCCEEDED",
        {"done": 3, "total": 3, "failed": 0},
    )
    status, run = get(url, f"{RUNS}/{runs['a']}")
    assert status == 200
    (line,) = run["summary"]
    assert (line["metric"], line["n"], line["errors"], line["mean"]) == ("exact_match", 2, 1, 0.5)
    assert run["histograms"]["exact_match"]["counts"] == [1, 1]
    assert [c["category"] for c in run["categories"]] == ["even", "odd"]
    assert run["error_groups"][0]["rows"] == [2]


ROW_QUERIES = [
    ("", [0, 1, 2]),
    ("?has_error=true", [2]),
    ("?q=lyon", [1]),
    ("?metric=exact_match&min=0.5", [0]),
    ("?metric=exact_match&sort=-metric", [0, 1, 2]),
    ("?sort=-row&limit=2", [2, 1]),
    ("?sort=-row&limit=2&offset=2", [0]),
]


@pytest.mark.parametrize(("query", "indices"), ROW_QUERIES)
def test_rows(url: str, runs: dict[str, str], query: str, indices: list[int]) -> None:
    status, data = get(url, f"{RUNS}/{runs['a']}/rows{query}")
    assert status == 200, data
    assert [row["index"] for row in data["rows"]] == indices
    assert data["total"] == (3 if "limit=2" in query else len(indices))


def test_one_row(url: str, runs: dict[str, str]) -> None:
    status, row = get(url, f"{RUNS}/{runs['a']}/rows/2")
    assert status == 200
    assert (row["prompt"], row["response"], row["category"]) == ("q2", "x", "odd")
    assert row["metrics"][0]["error"] == {"code": "INVALID_ARGUMENT", "message": "no ref"}
    assert get(url, f"{RUNS}/{runs['a']}/rows/9")[0] == 404


def test_compare(url: str, runs: dict[str, str]) -> None:
    status, data = get(url, f"{RUNS}/{runs['a']}/compare/{runs['b']}")
    assert status == 200, data
    (metric,) = data["metrics"]
    assert (metric["paired"], metric["delta"], metric["wins"], metric["ties"]) == (2, 0.5, 1, 1)
    assert [row["index"] for row in data["changed"]] == [1, 2]  # 1 moved by 1.0; 2 lost its error


ERRORS = [
    ("GET", f"{RUNS}/imp-nosuch", 404, "does not exist"),
    ("GET", f"{RUNS}/job-123", 404, "does not exist"),
    ("GET", f"{RUNS}/{{a}}/rows?has_error=maybe", 400, "has_error"),
    ("GET", f"{RUNS}/{{a}}/rows?metric=nosuch&sort=metric", 400, "no metric 'nosuch'"),
    ("GET", f"{RUNS}?limit=0", 400, "limit"),
    ("PUT", RUNS, 405, "not allowed"),
    ("GET", f"{RUNS}/{{a}}/nothing", 404, "no route"),
    ("POST", RUNS, 400, "results"),
    ("DELETE", f"{RUNS}/job-1", 404, "imported run"),
]


@pytest.mark.parametrize(("method", "path", "status", "message"), ERRORS)
def test_errors(
    url: str, runs: dict[str, str], method: str, path: str, status: int, message: str
) -> None:
    got, data, _ = request(url, method, path.format(a=runs["a"]), {} if method == "POST" else None)
    assert got == status, data
    assert message in data["error"]["message"]


def test_compare_needs_the_same_dataset(url: str, runs: dict[str, str]) -> None:
    other = [record(0, "other", "Paris", 1.0), *A[1:]]
    _, made, _ = request(url, "POST", RUNS, {"name": "c", "results": jsonl(other)})
    status, data = get(url, f"{RUNS}/{runs['a']}/compare/{made['id']}")
    assert status == 400
    assert "row 0 has another prompt in each run" in data["error"]["message"]
    _, short, _ = request(url, "POST", RUNS, {"name": "d", "results": jsonl(A[:2])})
    status, data = get(url, f"{RUNS}/{runs['a']}/compare/{short['id']}")
    assert status == 400
    assert "3 and 2 rows" in data["error"]["message"]


def multipart(fields: dict[str, tuple[str | None, str]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, (filename, content) in fields.items():
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        parts.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n{content}\r\n")
    body = ("".join(parts) + f"--{boundary}--\r\n").encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_multipart_import_and_delete(url: str) -> None:
    body, content_type = multipart(
        {
            "name": (None, "uploaded <b>run</b>"),
            "files": ("results.jsonl", jsonl(A)),
            "more": ("aggregation.json", '{"rows": 3}'),
            "report": ("report.html", "<html></html>"),
        }
    )
    headers = {"Content-Type": content_type}
    status, data, _ = request(url, "POST", RUNS, body, headers)
    assert status == 403  # multipart without the UI's header: a cross-site form could send it
    status, data, _ = request(url, "POST", RUNS, body, {**headers, "x-evald-ui": "1"})
    assert status == 201, data
    assert (data["name"], data["progress"]["total"]) == ("uploaded <b>run</b>", 3)
    assert request(url, "DELETE", f"{RUNS}/{data['id']}")[0] == 204
    assert get(url, f"{RUNS}/{data['id']}")[0] == 404


ANSWERS = ["Paris", "Lyon", "Paris"]


def test_a_dataset_job_is_a_run(server: ServerThread, url: str, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    rows = [{"prompt": f"q{i}", "response": r, "reference": "Paris"} for i, r in enumerate(ANSWERS)]
    data.write_text(jsonl(rows))
    job = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    job.dataset.gcs_source.uris.append(str(data))
    job.metrics.append(m.Metric(exact_match_spec={}))
    with grpc.insecure_channel(server.address) as channel:
        operation = stub(channel).EvaluateDataset(job, timeout=30)
    run_id = "job-" + operation.name.rsplit("/", 1)[-1]
    deadline = time.monotonic() + 20
    while True:
        status, run = get(url, f"{RUNS}/{run_id}")
        assert status == 200, run
        if run["run"]["status"] == "SUCCEEDED" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert run["run"]["name"] == "rows.jsonl"
    assert run["run"]["source"] == "vertex"
    assert run["run"]["progress"] == {"done": 3, "total": 3, "failed": 0}
    assert run["summary"][0]["metric"] == "exact_match"
    assert run["summary"][0]["mean"] == pytest.approx(2 / 3)
    status, rows = get(url, f"{RUNS}/{run_id}/rows?metric=exact_match&max=0.5")
    assert [r["prompt"] for r in rows["rows"]] == ["q1"]


UI_PATHS = [
    ("/ui/", "text/html; charset=utf-8"),
    ("/ui", "text/html; charset=utf-8"),
    ("/ui/runs/imp-0123/rows/4", "text/html; charset=utf-8"),  # a deep link: the app
    ("/ui/assets/js/app.js", "text/javascript; charset=utf-8"),
    ("/ui/assets/style.css", "text/css; charset=utf-8"),
    ("/ui/assets/favicon.svg", "image/svg+xml"),
]


@pytest.mark.parametrize(("path", "content_type"), UI_PATHS)
def test_ui_files(url: str, path: str, content_type: str) -> None:
    status, headers, body = raw_get(url, path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-cache"
    assert len(body) > 100
    status, headers, body = raw_get(url, path, {"If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"")


def test_ui_refusals(url: str) -> None:
    assert raw_get(url, "/ui/assets/nosuch.js")[0] == 404
    assert raw_get(url, "/uix")[0] == 404
    status, _, headers = request(url, "POST", "/ui/")
    assert (status, headers["allow"]) == (405, "GET, HEAD")
    status, _, headers = request(url, "GET", "/")
    assert (status, headers["location"]) == (302, "/ui/")


CSRF = [
    ({"Content-Type": "text/plain"}, 403),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 403),
    ({"Content-Type": "application/json", "Origin": "https://evil.example"}, 403),
    ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
    ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}, 201),
]


@pytest.mark.parametrize(("headers", "status"), CSRF)
def test_csrf_guard(url: str, headers: dict[str, str], status: int) -> None:
    body = json.dumps({"name": "csrf", "results": jsonl(A)}).encode()
    got, data, _ = request(url, "POST", RUNS, body, headers)
    assert got == status, data
    # NeMo's native API is guarded the same way.
    if status == 403:
        got, _, _ = request(url, "POST", "/v1/evaluation/jobs", b"{}", headers)
        assert got == 403


def raw_get(
    url: str, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_forwarding_gateway_serves_the_ui_and_forwards_native_apis(
    server: ServerThread, url: str, runs: dict[str, str]
) -> None:
    native = upstreams(url)
    gateway = server.call(start_forwarding(Settings(http_port=0), server.address, None, native))
    try:
        assert raw_get(gateway.url, "/ui/runs")[0] == 200
        status, data, _ = request(gateway.url, "GET", f"{RUNS}/{runs['a']}/rows?has_error=true")
        assert (status, [r["index"] for r in data["rows"]]) == (200, [2])
        status, data, _ = request(gateway.url, "GET", f"{RUNS}/nosuch-id")
        assert status == 404
        # The CSRF guard holds in front of the upstream too.
        status, _, _ = request(gateway.url, "POST", RUNS, b"{}", {"Content-Type": "text/plain"})
        assert status == 403
    finally:
        server.call(gateway.stop(0))
        for api in native:
            server.call(api.close())
    alone = server.call(start_forwarding(Settings(http_port=0), server.address))
    try:  # without an upstream: the pages load, the data calls are unknown routes
        assert raw_get(alone.url, "/ui/")[0] == 200
        assert request(alone.url, "GET", RUNS)[0] == 404
    finally:
        server.call(alone.stop(0))


NEMO_CONFIG = {"type": "custom", "tasks": {"t": {"type": "data", "metrics": {
    "em": {"type": "em", "params": {"ground_truth": "{{item.answer}}"}}}}}}  # fmt: skip


def test_a_nemo_job_is_a_run(url: str) -> None:
    rows = [
        {"question": "capital of France?", "output": "Paris", "answer": "paris"},
        {"question": "capital of Italy?", "output": "Milan", "answer": "Rome"},
    ]
    job = {"config": NEMO_CONFIG, "target": {"type": "rows", "rows": rows}}
    status, made, _ = request(url, "POST", "/v1/evaluation/jobs", job)
    assert status == 200, made
    deadline = time.monotonic() + 20
    while True:
        _, listed = get(url, f"{RUNS}?limit=500")
        (run,) = [r for r in listed["runs"] if r["source"] == "nemo"]
        if run["status"] == "SUCCEEDED" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert run["progress"]["done"] == 2
    status, found = get(url, f"{RUNS}/{run['id']}")
    assert status == 200, found
    (line,) = found["summary"]
    assert (line["metric"], line["mean"]) == ("em.em", 0.5)
    _, row = get(url, f"{RUNS}/{run['id']}/rows/1")
    assert (row["prompt"], row["response"], row["reference"]) == (
        "capital of Italy?",
        "Milan",
        "Rome",
    )
