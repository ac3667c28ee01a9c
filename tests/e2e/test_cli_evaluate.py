"""``evald evaluate`` (in-process and through a server), its HTML report, and ``evald jobs``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.cli import main
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.e2e.test_judge_metrics import answer
from tests.e2e.test_rubrics import smart
from tests.fakes.judge_config import MODELS, configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import ServerThread, serving, stub
from tests.tls import self_signed

ROWS = [
    {"prompt": "q0", "response": "the cat sat on the mat", "reference": "the cat sat on the mat"},
    {"prompt": "q1", "response": "a dog ran", "reference": "the cat sat on the mat"},
    {"prompt": "q2", "response": "<script>alert(1)</script>", "reference": "hello world"},
    {"prompt": "q3", "response": "no reference here"},  # every metric errs on this row
]
CHROMIUM = Path("/usr/bin/chromium")


def umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


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
    """Score :data:`ROWS`, one of four failing: allowed by ``--max-error-rate 0.25``."""
    data = write_rows(tmp_path / "rows.jsonl")
    return main(
        [
            "evaluate",
            "--metric", "bleu",
            "--metric", "rouge:rougeLsum",
            "--metric", "exact_match",
            "--data", str(data),
            "--output", str(tmp_path / "out"),
            "--max-error-rate", "0.25",
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
    assert report.count('<tr class="err">') == 1  # grouped: one message, three metrics
    assert {"run"} <= parsed.ids
    assert "evald version" in report
    for path in (tmp_path / "out").iterdir():  # every output as the umask says, like a new file
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask(), path.name


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    if not CHROMIUM.exists():  # CI installs it (.ci/run): there, its absence is a failure
        if os.environ.get("CI"):
            pytest.fail(f"CI needs headless Chromium at {CHROMIUM}")
        pytest.skip("headless Chromium is not installed")
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
    (["--max-error-rate", "0.2"], 1),  # the last one wins: 1 row of 4 is above 0.2
    (["--max-error-rate", "0.2", "--fail-under", "exact_match=0.9"], 1),  # failed wins
    (["--max-error-rate", "1.5"], 2),
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


JUDGED_ROWS = [
    {
        "id": "r1",
        "prompt": "Summarise the text.",
        "instruction": "Summarise the text.",
        "context": "A long text about cats.",
        "response": "Cats.",
        "reference": "Cats.",
        "baseline_response": "Text.",
    },
    {
        "id": "r2",
        "prompt": "Summarise the other text.",
        "instruction": "Summarise the other text.",
        "context": "A long text about dogs.",
        "response": "Dogs.",
        "reference": "Dogs!",
        "baseline_response": "Other.",
    },
]


@pytest.fixture(scope="module")
def fake_judge() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=answer)) as judge:
        yield judge


@pytest.fixture
def judged(fake_judge: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeJudge:
    """The fake judge configured for this test: for in-process runs (EVALD_JUDGE_CONFIG) and
    for the session server, which watches the same file."""
    fake_judge.reset()
    configure(monkeypatch, tmp_path, fake_judge.url)
    return fake_judge


def judged_run(tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    data = tmp_path / "judged.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in JUDGED_ROWS))
    pointwise = tmp_path / "brevity.txt"
    pointwise.write_text("Rate from 1 to 5 how brief {response} is for {prompt}.")
    pairwise = tmp_path / "versus.txt"
    pairwise.write_text("Prompt {prompt}\nResponse A: {baseline_response}\nResponse B: {response}")
    code = main(
        [
            "evaluate", "--quiet",
            "--metric", "fluency",
            "--metric", "pairwise_summarization_quality",
            "--metric", "exact_match_input",
            "--metric-template", f"brevity={pointwise}",
            "--metric-template", f"versus={pairwise}",
            "--data", str(data),
            "--output", str(tmp_path / "out"),
            *extra,
        ]
    )  # fmt: skip
    lines = (tmp_path / "out/results.jsonl").read_text().splitlines() if code != 2 else []
    return code, [json.loads(line) for line in lines]


JUDGED_SCORES = [
    # fluency (1 to 5), pairwise (B, the candidate, wins), exact_match_input, the pointwise
    # template (1 to 5), the pairwise template
    {"fluency": 4.0, "pairwise_summarization_quality": 1.0, "exact_match_input": 1.0,
     "brevity": 4.0, "versus": 1.0},
    {"fluency": 4.0, "pairwise_summarization_quality": 1.0, "exact_match_input": 0.0,
     "brevity": 4.0, "versus": 1.0},
]  # fmt: skip


SECURED_KEY = "evald-test-judged-CLI-key-9b2e"


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, Path]]:
    """A server with API keys and TLS (watching the tests' judge config, as every test server
    does); its certificate, which the CLI trusts."""
    root = tmp_path_factory.mktemp("secured")
    cert, key = self_signed(root, "localhost")
    keys = root / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "cli"\nkey = "{SECURED_KEY}"\n', encoding="utf-8")
    with serving(auth_keys_file=keys, tls_cert=cert, tls_key=key, data_dir=root) as running:
        yield running, cert


@pytest.mark.parametrize("where", ["local", "server", "secured server"])
def test_judge_metrics_legacy_inputs_and_templates(
    where: str,
    judged: FakeJudge,
    server: ServerThread,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    extra = ["--server", server.address] if where == "server" else []
    if where == "secured server":
        secured_server, cert = request.getfixturevalue("secured")
        monkeypatch.setenv("JUDGED_CLI_KEY", SECURED_KEY)
        flags = ["--api-key-env", "JUDGED_CLI_KEY", "--tls-ca", str(cert)]
        extra = ["--server", secured_server.address, *flags]
    code, records = judged_run(tmp_path, *extra, "--judge-model", MODELS["gemini"])
    assert code == 0
    scores = [{r["metric"]: r["score"] for r in record["results"]} for record in records]
    assert scores == JUDGED_SCORES
    assert {call.model for call in judged.calls} == {MODELS["gemini"]}
    aggregation = json.loads((tmp_path / "out/aggregation.json").read_text())
    by_name = {m["metric"]: m for m in aggregation["metrics"]}
    assert by_name["versus"]["win_rates"]["candidate"] == 1.0  # pairwise summaries
    if where != "secured server":
        assert aggregation["run"]["where"] == (
            "local" if where == "local" else f"server {server.address}"
        )
    assert aggregation["run"]["metrics"][0] == {"metric": "fluency", "input": "fluency_input"}


def test_named_judge_metrics(
    judged: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(judged, "default", smart)  # writes rubrics, critiques, verdicts
    data = write_rows(tmp_path / "rows.jsonl")
    args = ["evaluate", "--quiet", "--data", str(data), "--output", str(tmp_path / "o")]
    assert main([*args, "--metric", "vertex/general_quality_v1", "--metric", "safety_v1"]) == 0
    records = [json.loads(x) for x in (tmp_path / "o/results.jsonl").read_text().splitlines()]
    quality = [record["results"][0]["score"] for record in records]
    assert quality == [pytest.approx(2 / 3)] * len(ROWS)  # 2 of the 3 generated rubrics met
    assert [record["results"][1]["score"] for record in records] == [1.0] * len(ROWS)
    aggregation = json.loads((tmp_path / "o/aggregation.json").read_text())
    assert [m["metric"] for m in aggregation["metrics"]] == ["general_quality_v1", "safety_v1"]


def test_judge_metric_on_a_server_without_a_judge_fails_the_run(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate(tmp_path, "--quiet", "--server", server.address, "--metric", "fluency") == 1
    err = capsys.readouterr().err
    assert "4 x FAILED_PRECONDITION [fluency] first row 0: " in err
    assert "every row of fluency failed" in err


USAGE_CASES = [
    # (flags, a line of the message)
    (["--metric", "fluency"], "fluency needs a judge and none is configured"),
    (["--metric", "bleu", "--judge", "gemini"], "--judge needs a judge"),
    (["--metric", "nosuch"], "unknown metric 'nosuch'"),
    (["--metric", "flunecy"], "did you mean fluency"),
    (["--metric", "vertex/nemo/f1"], "unknown metric"),
    (["--metric", "bleu:x"], "bleu takes no parameters"),
    (["--metric", "nemo/f1:[1]"], "parameters must be a JSON object"),
    (["--metric", 'fluency:{"nope": 1}'], "no field named"),
    (["--metric-template", "x"], "expected NAME=FILE"),
    (["--metric-template", "x=/nonexistent.txt"], "cannot read"),
    (["--metric", "bleu", "--judge", "a", "--judge-model", "b"], "not both"),
]


@pytest.mark.parametrize(("flags", "message"), USAGE_CASES)
def test_usage_errors_before_scoring(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_rows(tmp_path / "rows.jsonl")
    code = main(
        ["evaluate", "--quiet", "--data", str(data), "--output", str(tmp_path / "o"), *flags]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1  # one line, no traceback
    assert not (tmp_path / "o").exists()


def test_unknown_judge_is_a_usage_error(
    judged: FakeJudge, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = judged_run(tmp_path, "--judge", "nosuch")
    assert code == 2
    assert "--judge: no configured judge serves model 'nosuch'" in capsys.readouterr().err
    assert judged.calls == []


FAILING_CASES = [
    # (rows, metric, what stderr says)
    ([{"prediction": "a", "reference": "a"}], "exact_match",
     "hint: the rows have a 'prediction' column but no 'response'"),
    ([{"response": "a", "reference": "a"}], "rouge:rougeX", "unknown rouge_type 'rougeX'"),
    ([{"prompt": "p"}], "fluency_input", "no 'response' column (nor 'prediction')"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "metric", "message"), FAILING_CASES)
def test_every_row_failing_exits_1(
    data: list[dict[str, Any]],
    metric: str,
    message: str,
    judged: FakeJudge,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in data * 3))
    args = ["evaluate", "--quiet", "--metric", metric, "--data", str(path)]
    assert main([*args, "--output", str(tmp_path / "o"), "--max-error-rate", "1"]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "errors: 3 (1 distinct)" in err
    assert "first row 0" in err
    assert f"every row of {metric} failed" in err
    assert (tmp_path / "o/report.html").exists()  # written all the same


def test_a_server_that_needs_a_key_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALD_API_KEYS", "k-1")
    with serving() as secured:
        assert evaluate(tmp_path, "--quiet", "--server", secured.address) == 1
    err = capsys.readouterr().err
    # The connection is checked before any row: one line says what to set.
    assert err.count("\n") == 1
    assert "requires an API key: set EVALD_API_KEY" in err


def test_float32_scores_read_short(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"response": "a b c d e", "reference": "a b c d x"}) + "\n")
    out = tmp_path / "o"
    metrics = ["--metric", "rouge_input:rouge1", "--metric", "rouge:rouge1"]
    assert main(["evaluate", "--quiet", *metrics, "--data", str(data), "--output", str(out)]) == 0
    text = (out / "results.jsonl").read_text()
    assert '"score":0.8,' in text
    assert "0.800000011920929" not in text


def test_metrics_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics", "list"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "fluency_input, judge" in lines["fluency"]
    assert "columns: prediction|response" in lines["fluency"]
    assert "fluency_input" not in lines  # listed once, as fluency
    assert "pairwise" in lines["pairwise_summarization_quality"]
    assert "parameters: guidelines" in lines["general_quality_v1"]
    assert lines["bleu"].split()[1] == "bleu_spec"
    assert "bleu_input" in lines  # another entry point than bleu
    assert main(["metrics", "list", "--json"]) == 0
    listed = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert listed["safety_v1"]["entry_point"] == "predefined_metric_spec"
    assert listed["safety_v1"]["needs_judge"] is True
    assert listed["nemo/f1"]["needs_judge"] is False
    assert listed["fluency_input"]["parameters"] == [{"name": "version", "kind": "number"}]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("evald ")


def test_metrics_of_metric_modules_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVALD_METRIC_MODULES", "tests.unit.metrics.plugin_metric")
    assert main(["metrics", "list"]) == 0
    assert "example/length_ratio" in capsys.readouterr().out
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"response": "abcdef", "reference": "abcd"}) + "\n")
    out = tmp_path / "o"
    args = ["evaluate", "--quiet", "--data", str(data), "--output", str(out)]
    assert main([*args, "--metric", "example/length_ratio"]) == 0
    assert '"score":1.5' in (out / "results.jsonl").read_text()
    monkeypatch.setenv("EVALD_METRIC_MODULES", "no_such_module_here")
    assert main(["metrics", "list"]) == 2
    assert main([*args, "--metric", "bleu"]) == 2
    assert "no_such_module_here" in capsys.readouterr().err
