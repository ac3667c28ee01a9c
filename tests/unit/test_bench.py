"""``python -m bench --quick`` runs and writes its Markdown and JSON (no timing is checked)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import models
from bench.__main__ import SECTIONS, main


def test_quick_run_writes_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quick", "--only", "metrics", "--out", str(tmp_path)]) == 0

    printed = capsys.readouterr().out
    assert "| ROUGE 1+2+L+Lsum, stemmer | long (400 words) |" in printed
    assert (tmp_path / "bench.md").read_text(encoding="utf-8").strip() in printed

    data = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))
    assert data["machine"]["cores"] >= 1
    assert data["machine"]["python"]
    (section,) = data["sections"]
    assert section["name"] == "metrics"
    cases = {(row["case"], row["size"].split()[0]) for row in section["rows"]}
    for size in ("short", "medium", "long"):
        assert ("ROUGE 1+2+L+Lsum, stemmer", size) in cases
        assert ("ROUGE-L", size) in cases
        assert ("BLEU (sentence)", size) in cases
    for row in section["rows"]:
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert row["ratio"] == pytest.approx(row["ours"] / row["baseline"])


def test_unknown_section_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--only", "nonsense"])
    assert "invalid choice" in capsys.readouterr().err


def test_sections_are_named_runners() -> None:
    assert "metrics" in SECTIONS
    assert all(callable(run) for run in SECTIONS.values())


# The server section and the ghz files ---------------------------------------------------------

BARE = "bare grpc.aio server + kernel (no evald)"
SERVER_CASES = [
    "exact_match, 1 instance, gRPC",
    "BLEU, gRPC",
    f"BLEU, {BARE}",
    "ROUGE-L, stemmer, gRPC",
    f"ROUGE-L, stemmer, {BARE}",
    "BLEU, JSON/HTTP gateway",
    "ROUGE-L, stemmer, JSON/HTTP gateway",
]
CPUS = sorted(os.sched_getaffinity(0))
if len(CPUS) > 1:  # the server alone on the first core, the load on the others
    ALONE = f"alone on core {CPUS[0]}"
    SERVER_CASES += [
        f"exact_match, 1 instance, gRPC, server {ALONE}",
        f"BLEU, gRPC, server {ALONE}",
        f"BLEU, {BARE}, {ALONE}",
        f"ROUGE-L, stemmer, gRPC, server {ALONE}",
        f"ROUGE-L, stemmer, {BARE}, {ALONE}",
    ]


def test_quick_server_section_runs_against_echo_and_evald(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--quick", "--only", "server", "--out", str(tmp_path)]) == 0
    assert "bare echo gRPC server" in capsys.readouterr().out
    (section,) = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))["sections"]
    assert section["name"] == "server"
    rows = {row["case"]: row for row in section["rows"]}
    assert list(rows) == SERVER_CASES
    for row in rows.values():
        assert row["errors"] == 0
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert row["p50_ms"] <= row["p99_ms"]
    # gRPC batch rows are CPU per pair; the gateway's baseline is gRPC's pairs/s (100 a request).
    assert rows["BLEU, gRPC"]["unit"] == "µs CPU/pair"
    assert rows["ROUGE-L, stemmer, gRPC"]["ratio"] == pytest.approx(
        rows["ROUGE-L, stemmer, gRPC"]["ours"] / rows["ROUGE-L, stemmer, gRPC"]["baseline"]
    )
    gateway = rows["BLEU, JSON/HTTP gateway"]
    assert gateway["baseline"] == pytest.approx(rows["BLEU, gRPC"]["requests_per_second"] * 100)


def test_load_generator_refuses_non_loopback_targets() -> None:
    from bench.load import Target

    with pytest.raises(ValueError, match="loopback"):
        Target("grpc", "10.0.0.1", 50051, "/x/y")
    assert Target("grpc", "::1", 1, "/x/y").port == 1


def test_load_result_percentiles() -> None:
    from bench.load import Result

    result = Result(requests=100, seconds=2.0, latencies=[i / 1000 for i in range(1, 101)])
    assert result.per_second == 50
    assert result.percentile(50) == pytest.approx(50.5)  # inclusive method, as numpy's default
    assert result.percentile(99) == pytest.approx(99.01)


GHZ = Path(__file__).resolve().parents[2] / "bench" / "ghz"


def test_ghz_files_are_what_the_generator_writes() -> None:
    from bench import ghzdata

    for name, text in ghzdata.files().items():
        assert (GHZ / name).read_text(encoding="utf-8") == text, (
            f"run python -m bench.ghzdata ({name})"
        )


@pytest.mark.parametrize("name", ["exact_match-1", "bleu-100", "rouge-100"])
def test_ghz_data_files_parse_into_the_request_message(name: str) -> None:
    from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
    from google.protobuf import json_format

    data = json.loads((GHZ / f"{name}.data.json").read_text(encoding="utf-8"))
    for item in data if isinstance(data, list) else [data]:
        request = json_format.ParseDict(item, messages.EvaluateInstancesRequest())
        which = request.WhichOneof("metric_inputs")
        assert which is not None
        assert len(getattr(request, which).instances) == (1 if name.startswith("exact") else 100)
    for flavour in ("proto", "reflect"):
        config = json.loads((GHZ / f"{name}.{flavour}.json").read_text(encoding="utf-8"))
        assert (
            config["call"] == "google.cloud.aiplatform.v1beta1.EvaluationService.EvaluateInstances"
        )
        assert config["data-file"] == f"bench/ghz/{name}.data.json"
        assert ("proto" in config) == (flavour == "proto")
        # Calls in flight at the cut-off finish (else ghz counts them as errors), and the
        # connections are 4x the workers of a 2-core server (fewer land unevenly on them).
        assert config["duration-stop"] == "wait"
        assert config["connections"] >= 8


def test_ghz_proto_config_compiles_with_its_import_paths(tmp_path: Path) -> None:
    from importlib import resources

    from grpc_tools import protoc  # type: ignore[import-untyped]

    from bench import ghzdata

    root = Path(__file__).resolve().parents[2]
    config = json.loads((GHZ / "bleu-100.proto.json").read_text(encoding="utf-8"))
    googleapis = ghzdata.googleapis(tmp_path / "googleapis")
    paths = [str(root / p) for p in config["import-paths"] if p != "bench/ghz/googleapis"]
    well_known = str(resources.files("grpc_tools") / "_proto")  # ghz has these built in
    code = protoc.main(
        [
            "protoc",
            *(f"-I{p}" for p in [*paths, str(googleapis), well_known]),
            f"--descriptor_set_out={tmp_path / 'out.pb'}",
            str(root / config["proto"]),
        ]
    )
    assert code == 0


def test_crew_processes_measure_many_rounds_and_report_failures() -> None:
    from bench.load import Crew
    from bench.server import KernelJob

    with Crew(KernelJob("bleu", 20), 2) as crew:
        first, second = crew.measure(0.05), crew.measure(0.05)  # the same processes, twice
        assert {first.errors, second.errors} == {0}
        assert first.requests >= 2 * 8  # 8 pairs at a time, 2 processes
        assert second.requests >= 2 * 8
        assert first.per_second > 0
    with (
        Crew(KernelJob("bleu", 0), 1) as broken,  # no pairs: the job fails to start
        pytest.raises(RuntimeError, match="failed to start: ZeroDivisionError"),
    ):
        broken.measure(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_cpu_seconds_of_a_process_tree() -> None:
    import os
    import subprocess
    import sys
    import time

    from bench import cpu

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in cpu.tree(os.getpid())
        assert os.getpid() in cpu.tree(os.getpid())
        before = cpu.seconds([os.getpid()])
        deadline = time.process_time() + 0.2
        while time.process_time() < deadline:  # burn 0.2 s of CPU
            pass
        assert cpu.seconds([os.getpid()]) - before >= 0.15
        assert cpu.seconds([2**22 + 12345]) == 0.0  # no such process: counts 0
    finally:
        child.kill()
        child.wait()


# The models section -----------------------------------------------------------------------------


def test_quick_models_section_runs_against_the_reference_packages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("bert_score")
    pytest.importorskip("detoxify")
    assert main(["--quick", "--only", "models", "--out", str(tmp_path)]) == 0
    assert "Model-backed metrics on CPU" in capsys.readouterr().out
    (section,) = json.loads((tmp_path / "bench.json").read_text(encoding="utf-8"))["sections"]
    assert section["name"] == "models"
    cases = [row["case"] for row in section["rows"]]
    # COMET's reference lives in an environment of its own (`make bench` builds it).
    comet = ("COMET-22",) if models.comet_python() is not None else ()
    assert cases == [
        f"{metric}, {case}"
        for metric in ("BERTScore", "Toxicity (Detoxify)", *comet, "MetricX-24")
        for case in ("batch 32", "single-instance calls from 32 concurrent clients", "batch 1")
    ]
    if not comet:
        assert any("COMET not measured" in note for note in section["notes"])
    for row in section["rows"]:
        assert row["ours"] > 0
        assert row["baseline"] > 0
        assert "items per forward pass" in row["note"]
    assert any("Models (seeded random weights" in note for note in section["notes"])
