"""The "server" section runs in quick mode against echo and evald (no timing is checked)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.__main__ import main

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
