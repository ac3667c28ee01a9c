"""evald.scoring: jobs in real scoring processes (forkserver), their failures and cancellation."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest
from evald import scoring

T = TypeVar("T")


def pid() -> int:
    return os.getpid()


def echo(value: object) -> object:
    return value


def slow(value: object, seconds: float) -> object:
    time.sleep(seconds)
    return value


def fail() -> None:
    raise ValueError("broken job")


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def loaded(names: list[str]) -> list[str]:
    return [name for name in names if name in sys.modules]


@pytest.fixture
def one_process() -> Iterator[None]:
    scoring.configure_scoring(1)
    scoring.warm_scoring_pool()
    yield
    scoring.shutdown_scoring()
    scoring.configure_scoring(0)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def test_a_job_runs_in_another_process(one_process: None) -> None:
    assert run(scoring.run_job(pid)) != os.getpid()
    assert run(scoring.run_job(echo, {"a": [1, 2.5]})) == {"a": [1, 2.5]}


def test_a_process_starts_with_the_metrics_loaded(one_process: None) -> None:
    # Forked from a forkserver that imported them: no import (nltk: ~2.7 s) on a first job.
    wanted = [
        "evald.metrics.computed.rouge",
        "evald.metrics.computed.bleu",
        "evald.kernels.rouge",
        "nltk",
    ]
    assert run(scoring.run_job(loaded, wanted)) == wanted


def test_more_jobs_than_processes_wait_their_turn(one_process: None) -> None:
    async def many() -> list[object]:
        return list(await asyncio.gather(*(scoring.run_job(slow, i, 0.02) for i in range(6))))

    assert run(many()) == list(range(6))


def test_a_failing_job_is_unavailable_and_the_process_stays(one_process: None) -> None:
    before = run(scoring.run_job(pid))
    with pytest.raises(scoring.ScoringUnavailable, match="broken job"):
        run(scoring.run_job(fail))
    assert run(scoring.run_job(pid)) == before


def test_a_job_that_cannot_be_pickled_is_unavailable(one_process: None) -> None:
    with pytest.raises(scoring.ScoringUnavailable, match="cannot be sent"):
        run(scoring.run_job(echo, lambda: None))


def test_a_killed_process_is_replaced(one_process: None) -> None:
    before = run(scoring.run_job(pid))
    with pytest.raises(scoring.ScoringUnavailable, match="failed"):
        run(scoring.run_job(die))
    after = run(scoring.run_job(pid))
    assert after not in (before, os.getpid())


def test_a_cancelled_job_does_not_leak_its_answer_into_the_next(one_process: None) -> None:
    async def cancel_then_ask() -> object:
        job = asyncio.ensure_future(scoring.run_job(slow, "stale", 0.3))
        await asyncio.sleep(0.1)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        return await scoring.run_job(echo, "fresh")

    assert run(cancel_then_ask()) == "fresh"


def test_no_processes_means_unavailable() -> None:
    scoring.configure_scoring(0)
    with pytest.raises(scoring.ScoringUnavailable):
        run(scoring.run_job(pid))


def test_shutdown_stops_the_processes(one_process: None) -> None:
    child = run(scoring.run_job(pid))
    scoring.shutdown_scoring()
    deadline = time.monotonic() + 30  # well past a stop; only a failing run waits it out
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"scoring process {child} still runs")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_scoring_processes_run_on_the_cores_a_pinned_worker_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker pinned to one core lets its scoring processes use all the supervisor's cores."""
    cores = sorted(os.sched_getaffinity(0))
    monkeypatch.setenv(scoring.SCORING_CPUS_ENV, str(cores[-1]))
    scoring.configure_scoring(1)
    try:
        assert run(scoring.run_job(os.sched_getaffinity, 0)) == {cores[-1]}
    finally:
        scoring.shutdown_scoring()
        scoring.configure_scoring(0)


@pytest.mark.parametrize(
    ("cpus", "expected"),
    [("0,1,2,3", 4), ("5", 1), ("", None)],  # "": no pinned worker, the process's own cores
)
def test_default_pool_has_one_process_per_core_scoring_may_use(
    monkeypatch: pytest.MonkeyPatch, cpus: str, expected: int | None
) -> None:
    """A pinned worker's pool counts the supervisor's cores, not its own one: a worker that
    gets most connections can still score on every core."""
    if cpus:
        monkeypatch.setenv(scoring.SCORING_CPUS_ENV, cpus)
    else:
        monkeypatch.delenv(scoring.SCORING_CPUS_ENV, raising=False)
    scoring.configure_scoring(None)
    try:
        assert scoring.scoring_processes() == (expected or scoring.available_cores())
    finally:
        scoring.configure_scoring(0)


@pytest.fixture
def cold_process() -> Iterator[None]:
    """One scoring process, not started yet."""
    scoring.configure_scoring(1)
    yield
    scoring.shutdown_scoring()
    scoring.configure_scoring(0)


def test_a_caller_cancelled_while_its_process_starts_leaves_the_pool_whole(
    cold_process: None,
) -> None:
    """The process started for a caller that is cancelled meanwhile still joins the pool, and
    the next job gets it (it used to be handed to the gone caller: every later job waited)."""

    async def main() -> object:
        first = asyncio.ensure_future(scoring.run_job(echo, 1))
        await asyncio.sleep(0)  # the pool has begun starting its process
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        return await asyncio.wait_for(scoring.run_job(echo, 2), 30)

    assert run(main()) == 2


def test_a_job_its_caller_gave_up_is_killed(one_process: None) -> None:
    """A cancelled caller's job does not keep computing: its process is killed, and the next
    job gets a new one."""

    async def main() -> tuple[int, int]:
        first_pid = await scoring.run_job(pid)
        job = asyncio.ensure_future(scoring.run_job(slow, 0, 30))
        await asyncio.sleep(0.5)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        return first_pid, await asyncio.wait_for(scoring.run_job(pid), 30)

    first, second = run(main())
    assert first != second
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)
