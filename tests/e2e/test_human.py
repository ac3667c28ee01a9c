"""Human evaluation over HTTP: key roles on both transports, tasks not assigned answering 404,
rating, resuming, exports and reports; and the unauthenticated mode with named raters, on a task
made from a finished dataset job with a judge metric to compare against."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest

from tests.http_support import http_url, request
from tests.support import MESSAGES, ServerThread, serving, stub

ADMIN = "evald-test-admin-key-4c1a"
ANN1 = "evald-test-annotator-one-8d2f"
ANN2 = "evald-test-annotator-two-1b7e"
ANN3 = "evald-test-annotator-three-6a0c"
KEYS = {"boss": ADMIN, "ann1": ANN1, "ann2": ANN2, "ann3": ANN3}
H = "/v1evald/human/".replace("v1evald", "v1/evald")
CSRF = {"x-evald-ui": "1"}
ROWS = [
    {"prompt": f"question {i}", "response": f"answer A{i}", "baseline_response": f"answer B{i}"}
    for i in range(4)
]
LOCATION = "projects/p/locations/l"


def call(
    base: str, method: str, path: str, key: str | None, body: Any = None, **headers: str
) -> tuple[int, Any]:
    sent = dict(headers)
    if key is not None:
        sent["authorization"] = f"Bearer {key}"
    if method in ("POST", "PUT", "DELETE"):
        sent = {**CSRF, **sent}
    status, data, _ = request(base, method, path, body, sent)
    return status, data


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.mktemp("human")
    keys = base / "keys.toml"
    keys.write_text(
        "".join(
            f'[[keys]]\nname = "{name}"\nkey = "{key}"\n'
            + ('role = "annotator"\n' if name.startswith("ann") else "")
            for name, key in KEYS.items()
        )
    )
    with serving(
        auth_keys_file=keys, http_port=0, metrics_port=0, data_dir=base / "data"
    ) as running:
        yield running


@pytest.fixture(scope="module")
def task(secured: ServerThread) -> dict[str, Any]:
    body = {
        "mechanism": "choice_buttons",
        "models": ["alpha", "beta"],
        "instructions": "Pick the better answer.",
        "raters": ["ann1", "ann2"],
        "raters_per_row": 2,
        "allow_tie": True,
        "dataset": {"rows": ROWS},
    }
    status, created = call(http_url(secured), "POST", H + "tasks", ADMIN, body)
    assert status == 201, created
    return dict(created)


ROLE_CASES = [
    # (key, method, path, body, expected HTTP status)
    (ANN1, "GET", H + "my/tasks", None, 200),
    (ANN1, "GET", H + "tasks/{id}", None, 200),
    (ANN1, "GET", H + "tasks/{id}/queue", None, 200),
    (ANN1, "GET", H + "tasks/{id}/rows/0", None, 200),
    (ANN1, "GET", H + "tasks", None, 403),
    (ANN1, "POST", H + "tasks", {}, 403),
    (ANN1, "GET", H + "tasks/{id}/report", None, 403),
    (ANN1, "GET", H + "tasks/{id}/export", None, 403),
    (ANN1, "GET", H + "tasks/{id}/ratings", None, 403),
    (ANN1, "DELETE", H + "tasks/{id}", None, 403),
    (ANN1, "POST", f"/v1beta1/{LOCATION}:evaluateInstances", {}, 403),
    (ANN1, "GET", f"/v1beta1/{LOCATION}/operations", None, 403),
    (ANN1, "GET", "/v1/evaluation/jobs", None, 403),
    (ANN1, "GET", "/v1/evald/runs", None, 403),
    (ANN1, "GET", "/healthz", None, 200),  # open by default
    (ANN3, "GET", H + "tasks/{id}", None, 404),
    (ANN3, "GET", H + "tasks/{id}/queue", None, 404),
    (ANN3, "GET", H + "tasks/{id}/rows/0", None, 404),
    (ANN3, "PUT", H + "tasks/{id}/rows/0/rating", {"value": "alpha"}, 404),
    (ADMIN, "GET", H + "tasks", None, 200),
    (ADMIN, "GET", H + "tasks/{id}/report", None, 200),
    (ADMIN, "GET", H + "tasks/{id}/rows/3", None, 200),
    (ADMIN, "GET", "/v1/evaluation/jobs", None, 200),
    (None, "GET", H + "my/tasks", None, 401),
]


@pytest.mark.parametrize(("key", "method", "path", "body", "expected"), ROLE_CASES)
def test_http_roles(
    secured: ServerThread,
    task: dict[str, Any],
    key: str | None,
    method: str,
    path: str,
    body: Any,
    expected: int,
) -> None:
    status, data = call(http_url(secured), method, path.format(id=task["id"]), key, body)
    assert status == expected, data
    if expected == 403:  # NeMo's API answers in FastAPI's shape, the others in Google's
        assert "annotator" in json.dumps(data["error"] if "error" in data else data["detail"])


@pytest.mark.parametrize(("key", "expected"), [(ANN1, 403), (ADMIN, 200), (None, 401)])
def test_metrics_scrape_by_role(secured: ServerThread, key: str | None, expected: int) -> None:
    assert secured.running is not None
    assert secured.running.metrics is not None
    parts = urlsplit(secured.running.metrics.url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        connection.request("GET", "/metrics", headers=headers)
        assert connection.getresponse().status == expected
    finally:
        connection.close()


def test_unassigned_task_looks_like_a_missing_one(
    secured: ServerThread, task: dict[str, Any]
) -> None:
    base = http_url(secured)
    _, hidden = call(base, "GET", H + f"tasks/{task['id']}", ANN3)
    _, missing = call(base, "GET", H + "tasks/nosuchtask", ANN3)
    assert hidden["error"]["message"].replace(task["id"], "X") == missing["error"][
        "message"
    ].replace("nosuchtask", "X")
    status, mine = call(base, "GET", H + "my/tasks", ANN3)
    assert (status, mine) == (200, {"tasks": []})


@pytest.mark.parametrize(
    ("key", "code"), [(ANN1, grpc.StatusCode.PERMISSION_DENIED), (ADMIN, grpc.StatusCode.OK)]
)
def test_grpc_roles(secured: ServerThread, key: str, code: grpc.StatusCode) -> None:
    m = MESSAGES["v1beta1"]
    request_ = m.EvaluateInstancesRequest(
        exact_match_input=m.ExactMatchInput(
            instances=[m.ExactMatchInstance(prediction="a", reference="a")]
        )
    )
    with grpc.insecure_channel(secured.address) as channel:
        method = stub(channel).EvaluateInstances
        if code == grpc.StatusCode.OK:
            method(request_, metadata=(("authorization", f"Bearer {key}"),))
            return
        with pytest.raises(grpc.RpcError) as caught:
            method(request_, metadata=(("authorization", f"Bearer {key}"),))
    error: Any = caught.value
    assert error.code() == code
    assert "annotator" in error.details()


CSRF_CASES = [
    # (headers, body as bytes, expected status)
    ({"Content-Type": "text/plain"}, json.dumps({"value": "alpha"}).encode(), 403),
    ({"Origin": "https://evil.example"}, json.dumps({"value": "alpha"}).encode(), 403),
    ({"Sec-Fetch-Site": "cross-site"}, json.dumps({"value": "alpha"}).encode(), 403),
    ({}, json.dumps({"value": "alpha"}).encode(), 200),
]


@pytest.mark.parametrize(("headers", "body", "expected"), CSRF_CASES)
def test_cross_site_state_changes_are_refused(
    secured: ServerThread,
    task: dict[str, Any],
    headers: dict[str, str],
    body: bytes,
    expected: int,
) -> None:
    sent = {"authorization": f"Bearer {ANN2}", **headers}
    path = H + f"tasks/{task['id']}/rows/3/rating"
    status, data, _ = request(http_url(secured), "PUT", path, body, sent)
    assert status == expected, data


def test_rate_resume_export(secured: ServerThread, task: dict[str, Any]) -> None:
    base = http_url(secured)
    tid = task["id"]
    status, queue = call(base, "GET", H + f"tasks/{tid}/queue", ANN1)
    assert status == 200
    assert queue["rows"] == [0, 1, 2, 3]  # two raters per row, two raters: everyone rates all
    choices = ["alpha", "beta", "tie"]
    for row in queue["rows"][:2]:
        status, saved = call(
            base, "PUT", H + f"tasks/{tid}/rows/{row}/rating", ANN1, {"value": choices[row]}
        )
        assert status == 200, saved
    # Stopped after two rows: the queue resumes at the third.
    _, queue = call(base, "GET", H + f"tasks/{tid}/queue", ANN1)
    assert (queue["next"], queue["completed"]) == (2, 2)
    status, changed = call(base, "PUT", H + f"tasks/{tid}/rows/1/rating", ANN1, {"value": "tie"})
    assert (status, changed["value"]) == (200, "tie")
    _, seen = call(base, "GET", H + f"tasks/{tid}", ANN1)
    _, full = call(base, "GET", H + f"tasks/{tid}", ADMIN)
    assert ("source" in seen, full["source"]) == (False, {"kind": "inline"})
    _, row = call(base, "GET", H + f"tasks/{tid}/rows/1", ANN1)
    assert row["ratings"] == {"pair": "tie"}
    assert row["responses"] == {"alpha": "answer A1", "beta": "answer B1"}
    status, bad = call(base, "PUT", H + f"tasks/{tid}/rows/2/rating", ANN1, {"value": "gamma"})
    assert status == 400
    assert "value" in json.dumps(bad)
    status, bad = call(base, "PUT", H + f"tasks/{tid}/rows/9/rating", ANN1, {"value": "alpha"})
    assert status == 404

    raw = _raw(base, H + f"tasks/{tid}/export", ADMIN)
    exported = [json.loads(line) for line in raw.splitlines()]
    _, page1 = call(base, "GET", H + f"tasks/{tid}/ratings?page_size=1", ADMIN)
    _, page2 = call(base, "GET", H + f"tasks/{tid}/ratings?page_size=100&page_token=1", ADMIN)
    assert page1["next_page_token"] == "1"
    assert page1["ratings"] + page2["ratings"] == exported
    mine = [r for r in exported if r["rater"] == "ann1"]
    assert [(r["row"], r["value"]) for r in mine] == [(0, "alpha"), (1, "tie")]
    _, filtered = call(base, "GET", H + f"tasks/{tid}/ratings?rater=ann1&row=1", ADMIN)
    assert [r["value"] for r in filtered["ratings"]] == ["tie"]


def _raw(base: str, path: str, key: str) -> str:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request("GET", path, headers={"authorization": f"Bearer {key}"})
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Content-Type", "").startswith("application/x-ndjson")
        return response.read().decode()
    finally:
        connection.close()


def test_open_server_names_raters_and_compares_with_a_judge_metric(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    rows = [
        {"prompt": "p0", "response": "Paris", "reference": "Paris"},
        {"prompt": "p1", "response": "Lyon", "reference": "Paris"},
        {"prompt": "p2", "response": "Nice", "reference": "Nice"},
        {"prompt": "p3", "response": "Rome", "reference": "Paris"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with serving(
        http_port=0, data_dir=tmp_path / "d", dataset_root=tmp_path, output_root=tmp_path
    ) as running:
        base = http_url(running)
        body = {
            "dataset": {"gcsSource": {"uris": [str(data)]}},
            "metrics": [{"exactMatchSpec": {}}],
        }
        status, operation = call(base, "POST", f"/v1beta1/{LOCATION}:evaluateDataset", None, body)
        assert status == 200, operation
        status, done = call(
            base, "POST", f"/v1beta1/{operation['name']}:wait", None, {"timeout": "20s"}
        )
        assert done["done"] is True, done
        job_id = operation["name"].rsplit("/", 1)[1]
        spec = {
            "mechanism": "likert_individual",
            "models": ["m"],
            "raters": ["ann", "bob"],
            "raters_per_row": 2,
            "dataset": {"run": job_id},
        }
        status, created = call(base, "POST", H + "tasks", None, spec)
        assert status == 201, created
        tid = created["id"]
        status, error = call(base, "GET", H + f"tasks/{tid}/queue", None)
        assert status == 400
        assert "rater" in json.dumps(error)
        likert = {"ann": [5, 2, 4, 1], "bob": [4, 1, 5, 2]}
        for rater, values in likert.items():
            for row, value in enumerate(values):
                status, saved = call(
                    base,
                    "PUT",
                    H + f"tasks/{tid}/rows/{row}/rating",
                    None,
                    {"value": value, "rater": rater},
                )
                assert status == 200, saved
        status, report = call(
            base, "GET", H + f"tasks/{tid}/report?run={job_id}&metric=exact_match", None
        )
        assert status == 200, report
        assert report["likert"]["m"]["histogram"] == {"1": 2, "2": 2, "3": 0, "4": 2, "5": 2}
        spearman = report["judge"]["spearman"]["m"]
        # Means 4.5, 1.5, 4.5, 1.5 against exact match 1, 0, 1, 0: perfectly concordant.
        assert (spearman["value"], spearman["n"]) == (pytest.approx(1.0), 4)
        # The web UI's run ID of the job names it too.
        status, again = call(
            base, "GET", H + f"tasks/{tid}/report?run=job-{job_id}&metric=exact_match", None
        )
        assert again["judge"]["spearman"] == report["judge"]["spearman"]
        status, error = call(base, "GET", H + f"tasks/{tid}/report?run={job_id}&metric=bleu", None)
        assert status == 400
        assert "metric" in json.dumps(error)


def test_task_from_an_imported_run(tmp_path: Path) -> None:
    records = [
        {"row": i, "input": {"prompt": f"p{i}", "response": f"r{i}"},
         "results": [{"metric": "judge", "score": score, "explanation": None, "error": None}]}
        for i, score in enumerate([0.1, 0.9, 0.5])
    ]  # fmt: skip
    with serving(http_port=0, data_dir=tmp_path / "d") as running:
        base = http_url(running)
        results = "".join(json.dumps(r) + "\n" for r in records)
        status, run = call(base, "POST", "/v1/evald/runs", None, {"name": "x", "results": results})
        assert status == 201, run
        spec = {"mechanism": "thumbs_up_down", "models": ["m"], "raters": ["ann"],
                "dataset": {"run": run["id"]}}  # fmt: skip
        status, created = call(base, "POST", H + "tasks", None, spec)
        assert status == 201, created
        tid = created["id"]
        for row, value in enumerate(["down", "up", "up"]):
            body = {"value": value, "rater": "ann"}
            assert call(base, "PUT", H + f"tasks/{tid}/rows/{row}/rating", None, body)[0] == 200
        status, report = call(
            base, "GET", H + f"tasks/{tid}/report?run={run['id']}&metric=judge", None
        )
        assert status == 200, report
        # Thumbs 0, 1, 1 against 0.1, 0.9, 0.5: ranks 1, 2.5, 2.5 vs 1, 3, 2.
        assert report["judge"]["spearman"]["m"]["value"] == pytest.approx(0.8660254)
        status, error = call(base, "POST", H + "tasks", None, {**spec, "dataset": {"run": "imp-x"}})
        assert status == 404, error
