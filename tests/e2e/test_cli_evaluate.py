"""``evald evaluate`` (in-process and through a server), its HTML report, and ``evald jobs``."""

from __future__ import annotations

import json
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.cli import main
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.support import ServerThread, serving, stub

ROWS = [
    {"prompt": "q0", "response": "the cat sat on the mat", "reference": "the cat sat on the mat"},
    {"prompt": "q1", "response": "a dog ran", "reference": "the cat sat on the mat"},
    {"prompt": "q2", "response": "<script>alert(1)</script>", "reference": "hello world"},
    {"prompt": "q3", "response": "no reference here"},  # every metric errs on this row
]
CHROMIUM = Path("/usr/bin/chromium")


def write_rows(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


class Structure(HTMLParser):
    """Counts the elements the report test checks."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.sections: list[str] = []
        self.ids: set[str] = set()
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        values = dict(attrs)
        if tag == "section" and values.get("data-metric"):
            self.sections.append(values["data-metric"] or "")
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for name in ("src", "href"):
            if values.get(name):
                self.external.append(values[name] or "")


def evaluate(tmp_path: Path, *extra: str) -> int:
    data = write_rows(tmp_path / "rows.jsonl")
    return main(
        [
            "evaluate",
            "--metric", "bleu",
            "--metric", "rouge:rougeLsum",
            "--metric", "exact_match",
            "--data", str(data),
            "--output", str(tmp_path / "out"),
            *extra,
        ]
    )  # fmt: skip


def test_local_run_writes_results_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(tmp_path, "--local") == 0
    out, err = capsys.readouterr()
    table = out.splitlines()
    assert table[0].split()[:4] == ["metric", "count", "errors", "mean"]
    assert [line.split()[0] for line in table[2:]] == ["bleu", "rouge:rougeLsum", "exact_match"]
    assert "4/4 rows" in err  # the progress bar (stderr is not a terminal here)
    lines = [json.loads(x) for x in (tmp_path / "out/results.jsonl").read_text().splitlines()]
    assert [x["row"] for x in lines] == [0, 1, 2, 3]
    exact = [x["results"][2]["score"] for x in lines]
    assert exact == [1.0, 0.0, 0.0, None]
    aggregation = json.loads((tmp_path / "out/aggregation.json").read_text())
    assert aggregation["metrics"][2]["mean"] == pytest.approx(1 / 3)
    assert (aggregation["metrics"][2]["count"], aggregation["metrics"][2]["errors"]) == (3, 1)

    report = (tmp_path / "out/report.html").read_text()
    parsed = Structure()
    parsed.feed(report)
    assert parsed.sections == ["bleu", "rouge:rougeLsum", "exact_match"]
    assert parsed.tags["svg"] == 3  # one distribution per metric
    assert parsed.tags.get("script", 0) == 0  # row text is escaped, never markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert {"summary", "errors", "rows"} <= parsed.ids
    assert parsed.external == []  # self-contained
    assert "Errors (3)" in report  # the reference-less row, once per metric


@pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium is not installed")
def test_report_renders_in_chromium(tmp_path: Path) -> None:
    assert evaluate(tmp_path, "--quiet") == 0
    png = tmp_path / "report.png"
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={png}",
            "--window-size=1200,1600",
            (tmp_path / "out/report.html").as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000  # more than a blank page


def test_through_a_server(server: ServerThread, tmp_path: Path) -> None:
    assert evaluate(tmp_path, "--server", server.address, "--quiet") == 0
    local = tmp_path / "local"
    local.mkdir()
    assert evaluate(local, "--quiet") == 0
    # The same scores either way.
    assert (tmp_path / "out/results.jsonl").read_text() == (local / "out/results.jsonl").read_text()


EXIT_CASES = [
    (["--fail-under", "exact_match=0.3"], 0),
    (["--fail-under", "exact_match=0.5"], 3),
    (["--fail-under", "bleu=0.1", "--fail-under", "exact_match=0.9"], 3),
    (["--fail-under", "nosuch=0.5"], 2),
    (["--fail-under", "exact_match"], 2),
    (["--concurrency", "0"], 2),
    (["--aggregation", "NOPE"], 2),
]


@pytest.mark.parametrize(("extra", "code"), EXIT_CASES)
def test_exit_codes(tmp_path: Path, extra: list[str], code: int) -> None:
    assert evaluate(tmp_path, "--quiet", *extra) == code


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evaluate", "--quiet", "--output", str(tmp_path / "o")]
    assert main([*args, "--metric", "bleu", "--data", str(tmp_path / "missing.jsonl")]) == 2
    assert main([*args, "--metric", "nosuch", "--data", str(write_rows(tmp_path / "r.jsonl"))]) == 2
    assert "unknown metric" in capsys.readouterr().err


def test_unreachable_server_exits_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert evaluate(tmp_path, "--quiet", "--server", f"127.0.0.1:{port}") == 1


def test_jobs_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_rows(tmp_path / "rows.jsonl")
    with (
        serving(data_dir=tmp_path / "data", dataset_root=tmp_path, output_root=tmp_path) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        request = m.EvaluateDatasetRequest(location="projects/evald/locations/local")
        request.dataset.gcs_source.uris.append(str(data))
        request.metrics.add(exact_match_spec={})
        name = stub(channel).EvaluateDataset(request).name
        job_id = name.rsplit("/", 1)[1]
        addr = ["--server", server.address]
        for _ in range(100):
            assert main(["jobs", "get", job_id, *addr, "--json"]) == 0
            got: dict[str, Any] = json.loads(capsys.readouterr().out)
            if got["done"]:
                break
            time.sleep(0.05)
        assert (got["state"], got["rows_done"], got["rows_failed"]) == ("SUCCEEDED", 4, 1)
        assert got["aggregation"]["aggregationResults"][0]["exactMatchMetricValue"]["score"] == (
            pytest.approx(1 / 3)
        )
        assert main(["jobs", "list", *addr]) == 0
        listing = capsys.readouterr().out
        assert name in listing
        assert "SUCCEEDED" in listing
        assert main(["jobs", "cancel", name, *addr]) == 0  # finished: nothing to do
        assert main(["jobs", "get", "12345", *addr]) == 1
        assert "NOT_FOUND" in capsys.readouterr().err


def test_results_per_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [  # fmeval's CLASSIFICATION_DATASET (test_classification_accuracy.py)
        {"response": "4", "reference": "4", "category": "brownie"},
        {"response": "4", "reference": "4", "category": "vanilla cake"},
        {"response": "2", "reference": "1", "category": "vanilla cake"},
    ]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = json.dumps({"valid_labels": ["1", "2", "3", "4", "5"]})
    code = main(
        [
            "evaluate",
            "--metric", f"fmeval/classification_accuracy:{labels}",
            "--metric", "nemo/bleu",
            "--data", str(data),
            "--output", str(tmp_path / "out"),
        ]
    )  # fmt: skip
    assert code == 0
    table = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in table[2:]] == [
        "fmeval/classification_accuracy",
        "fmeval/classification_accuracy [category=brownie]",
        "fmeval/classification_accuracy [category=vanilla cake]",
        "nemo/bleu",
        "nemo/bleu [category=brownie]",
        "nemo/bleu [category=vanilla cake]",
    ]
    aggregation = json.loads((tmp_path / "out/aggregation.json").read_text())
    accuracy, bleu = aggregation["metrics"]
    assert accuracy["dataset_scores"]["balanced_accuracy_score"] == pytest.approx(1 / 2)
    vanilla = accuracy["categories"]["vanilla cake"]
    assert vanilla["mean"] == 0.5
    assert vanilla["dataset_scores"]["precision_score"] == pytest.approx(1 / 2)
    assert set(bleu["categories"]) == {"brownie", "vanilla cake"}
    assert "corpus_bleu" in bleu["dataset_scores"]
    report = (tmp_path / "out/report.html").read_text()
    assert "[category=vanilla cake]" in report
