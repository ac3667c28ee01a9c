from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.fakes import judge_config
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.pg import postgres_cluster, postgres_url  # noqa: F401 (fixtures: a real PostgreSQL)
from tests.support import ServerThread, serving

TESTS = Path(__file__).resolve().parent

# Tests marked ``slow`` (left out by ``make test-quick``): modules that start ``evald serve``
# processes, wait out shutdowns, restarts, judge faults or sandbox time limits, load the official
# SDK, or search inputs (hypothesis), and single tests that run a benchmark or a long
# generated-input comparison. Kept here, not as decorators, so the lists are reviewed in one place.
SLOW_MODULES = {
    "contract/test_descriptors.py",
    "e2e/test_connections.py",
    "e2e/test_event_loop.py",
    "e2e/test_faults.py",
    "e2e/test_gateway_bodies.py",
    "e2e/test_gateway_cancel.py",
    "e2e/test_gateway_cli.py",
    "e2e/test_jobs_restart.py",
    "e2e/test_nemo_jobs_restart.py",
    "e2e/test_large_requests.py",
    "e2e/test_replicas.py",
    "e2e/test_sandbox_orphans.py",
    "e2e/test_shutdown.py",
    "e2e/test_workers.py",
    "fuzz/test_parsers.py",
    "fuzz/test_wire.py",
    "packaging/test_client_package.py",
    "unit/sandbox/test_attacks.py",
}
SLOW_TESTS = {
    "e2e/test_server.py::test_cli_port_in_use_exits_nonzero",
    "unit/gateway/test_fast_json.py::test_parse_equals_json_format_on_metric_inputs",
    "unit/gateway/test_fast_json.py::test_render_equals_json_format",
    "unit/kernels/test_bleu.py::test_corpus_bleu_generated",
    "unit/kernels/test_rouge.py::test_generated_pairs_all_types",
    "bench/test_load.py::test_crew_processes_measure_many_rounds_and_report_failures",
    "bench/test_main.py::test_quick_run_writes_table_and_json",
    "bench/test_server.py::test_quick_server_section_runs_against_echo_and_evald",
    "bench/test_judge.py::test_quick_judge_section_writes_its_rows",
    "bench/test_models.py::test_quick_models_section_runs_against_the_reference_packages",
    "unit/test_scoring.py::test_a_job_runs_in_another_process",
    "e2e/test_ray.py::test_driver_killed_and_restarted_stores_every_row_once",
    "bench/test_ray.py::test_quick_ray_section_compares_both_engines",
}


CLUSTER_MODULES = {"e2e/test_ray.py", "bench/test_ray.py"}
"""Modules that start a Ray cluster: its processes (GCS, raylet, workers importing evald) take
both cores for tens of seconds, starving the timing checks of tests running beside them, and
starve themselves (the cluster's start-up times out). ``make test`` runs them after the rest,
alone."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow = set()
    for item in items:
        module = item.path.resolve().relative_to(TESTS).as_posix()
        test = f"{module}::{item.originalname if isinstance(item, pytest.Function) else item.name}"
        if module in SLOW_MODULES or test in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
            slow.add(item.path)
        if module in CLUSTER_MODULES:
            item.add_marker(pytest.mark.cluster)
    # Modules with slow tests first, each module's tests kept in order. `make test` hands whole
    # modules to the test processes in this order as they free up (xdist's loadfile, not
    # reordered): a long module handed out last would run on alone after the others finish.
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def server() -> Iterator[ServerThread]:
    """One real evald server on 127.0.0.1 (port 0) for the test session."""
    with serving() as running_server:
        yield running_server


@pytest.fixture(scope="session")
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    """An insecure channel to the session server."""
    with grpc.insecure_channel(server.address) as ch:
        yield ch


@pytest.fixture(autouse=True)
def _no_judge_left_configured() -> Iterator[None]:
    """The judge a test configured is gone for the next one (servers outlive tests)."""
    yield
    judge_config.remove()


@pytest.fixture(scope="session")
def golden_judge() -> Iterator[FakeJudge]:
    """The fake judge that judged golden cases script (``"judge"`` in the golden file)."""
    # A call beyond the scripted answers gets text no metric can read, so the case fails.
    with running(FakeJudge(default=lambda prompt: "no scripted answer")) as judge:
        yield judge


@pytest.fixture
def golden_case_judge(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[None]:
    """For a golden case (parameter ``path``) with ``"judge"`` answers: the fake judge, scripted
    with them, is the judge of the in-process server for this test (the server watches the
    tests' judge config file); afterwards every answer must have been asked for."""
    spec = getattr(request.node, "callspec", None)
    path = spec.params.get("path") if spec is not None else None
    case = json.loads(path.read_text(encoding="utf-8")) if isinstance(path, Path) else {}
    answers = case.get("judge")
    if answers is None:
        yield
        return
    judge: FakeJudge = request.getfixturevalue("golden_judge")
    judge.reset()
    configure(monkeypatch, tmp_path, judge.url)
    judge.script(*answers)
    yield
    assert len(judge.calls) == len(answers), f"{len(judge.calls)} calls for {len(answers)} answers"
