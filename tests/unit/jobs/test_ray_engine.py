"""The Ray engine's parts that need no cluster: the limiter's leases, the settings, and the
one-line errors when ``--engine ray`` is asked for without Ray installed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from evald import api
from evald.cli.main import main
from evald.config import Settings
from evald.errors import FailedPrecondition, Unavailable
from evald.jobs import ray_engine
from evald.jobs.ray_engine import Limiter
from evald.service import Evaluator
from evald.targets import Endpoint, Generation, Targets

from tests.fakes import model_server
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running


def test_limiter_never_hands_out_more_than_the_limit() -> None:
    async def scenario() -> tuple[int, int]:
        limiter = Limiter()
        in_flight = peak = 0

        async def call() -> None:
            nonlocal in_flight, peak
            lease = await limiter.acquire("judge:j", 3, 30.0)
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            await limiter.release("judge:j", lease)

        await asyncio.gather(*(call() for _ in range(20)))
        return peak, await limiter.peak("judge:j")

    assert asyncio.run(scenario()) == (3, 3)


def test_a_lapsed_lease_frees_its_slot_and_a_renewed_one_does_not() -> None:
    async def scenario() -> None:
        limiter = Limiter()
        dead = await limiter.acquire("k", 1, 0.2)  # its holder dies: never released
        started = time.monotonic()
        lease = await asyncio.wait_for(limiter.acquire("k", 1, 0.3), 5)
        assert 0.15 < time.monotonic() - started < 2
        assert not await limiter.renew("k", dead, 1.0)  # lapsed: gone
        assert await limiter.renew("k", lease, 30.0)
        with pytest.raises(TimeoutError):  # renewed: still held
            await asyncio.wait_for(limiter.acquire("k", 1, 1.0), 0.5)
        await limiter.release("k", lease)
        await asyncio.wait_for(limiter.acquire("k", 1, 1.0), 1)
        assert await limiter.acquire("other", 1, 1.0)  # keys are counted apart

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"engine": "spark"}, "engine must be local or ray, got 'spark'"),
        ({"ray_address": ""}, "ray_address must not be empty"),
    ],
)
def test_bad_engine_settings_are_refused(values: dict[str, str], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Settings(**values)  # type: ignore[arg-type]


def test_engine_settings_come_from_the_environment() -> None:
    found = Settings.load(env={"EVALD_ENGINE": "ray", "EVALD_RAY_ADDRESS": "ray://head:10001"})
    assert (found.engine, found.ray_address) == ("ray", "ray://head:10001")
    assert (Settings().engine, Settings().ray_address) == ("local", "auto")


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the ``ray`` extra were not installed."""
    monkeypatch.setitem(sys.modules, "ray", None)


def test_require_names_the_extra(no_ray: None) -> None:
    with pytest.raises(FailedPrecondition, match=r"pip install 'evald\[ray\]'"):
        ray_engine.require()


def test_serve_without_ray_exits_2_in_one_line(
    no_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["serve", "--engine", "ray", "--data-dir", str(tmp_path), "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"evald serve: {ray_engine.MISSING}\n"


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--engine", "ray"], ray_engine.MISSING),
        (
            ["--engine", "ray", "--server", "localhost:1"],
            "--engine and --ray-address are for scoring in this process",
        ),
    ],
)
def test_evaluate_engine_usage_exits_2_in_one_line(
    no_ray: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    problem: str,
) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"response": "a", "reference": "a"}) + "\n")
    args = ["evaluate", "--metric", "exact_match", "--data", str(data), "--quiet", *flags]
    code = main([*args, "--output", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err == f"evald evaluate: {problem}\n"


class SharedGate:
    """What :class:`evald.jobs.ray_engine.RayGate` does, in this process: every "worker"
    (here: several Targets or Judges objects) takes its slots from one :class:`Limiter`."""

    def __init__(self) -> None:
        self.limiter = Limiter()
        self.keys: set[tuple[str, int]] = set()

    @contextlib.asynccontextmanager
    async def __call__(self, key: str, limit: int) -> AsyncIterator[None]:
        self.keys.add((key, limit))
        lease = await self.limiter.acquire(key, limit, 30.0)
        try:
            yield
        finally:
            await self.limiter.release(key, lease)


@pytest.mark.parametrize(("shared", "peak"), [(True, 2), (False, 4)])
async def test_target_limit_holds_across_workers_with_a_gate(shared: bool, peak: int) -> None:
    gate = SharedGate() if shared else None
    async with model_server.running() as fake:
        fake.delay = 0.05
        workers = [Targets(cache_path=None, max_concurrency=2, gate=gate) for _ in range(2)]
        endpoint = Endpoint(fake.url, "m")
        try:
            await asyncio.gather(
                *(
                    workers[i % 2].generate(endpoint, Generation("completion", prompt=f"{i}"))
                    for i in range(12)
                )
            )
        finally:
            for worker in workers:
                await worker.aclose()
    assert fake.max_in_flight == peak
    if gate is not None:
        assert gate.keys == {(f"target:nim {endpoint.base_url} m", 2)}


@pytest.mark.parametrize(("shared", "peak"), [(True, 2), (False, 4)])
def test_judge_limit_holds_across_workers_with_a_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: bool, peak: int
) -> None:
    def slow(prompt: str) -> str:
        time.sleep(0.05)
        return json.dumps({"score": 4, "explanation": "slow"})

    gate = SharedGate() if shared else None
    with running(FakeJudge(default=slow)) as judge:
        path = configure(monkeypatch, tmp_path, judge.url, max_concurrency=2)
        settings = Settings(data_dir=tmp_path / "data", judge_config=path)
        request = api.messages.EvaluateInstancesRequest()
        request.metrics.add().pointwise_metric_spec.metric_prompt_template = "Rate: {response}"
        request.instance.response.text = "an answer"

        async def scenario() -> None:
            workers = [Evaluator(ray_engine.build_services(settings, gate)) for _ in range(2)]
            await asyncio.gather(*(workers[i % 2].evaluate_instances(request) for i in range(12)))
            for worker in workers:
                await worker.services.judges.aclose()

        asyncio.run(scenario())
    assert len(judge.calls) == 12
    assert judge.peak == peak
    if gate is not None:
        assert gate.keys == {("judge:fake", 2)}


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("127.0.0.1:1", "cannot reach the Ray cluster at '127.0.0.1:1'"),
        ("ray://127.0.0.1:1", "cannot reach the Ray cluster at 'ray://127.0.0.1:1'"),
        ("head", "must be auto, local, HOST:PORT or ray://"),
    ],
)
def test_an_unreachable_address_fails_at_once(address: str, problem: str) -> None:
    with pytest.raises(Unavailable, match=re.escape(problem)):
        ray_engine.reachable(address, timeout=2)
