"""evald.models.runtime: model workers (real processes), dynamic batching, deadlines,
cancellation, least-recently-used unloading, missing models and crashed workers."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from importlib.util import find_spec
from pathlib import Path

import pytest
from evald.errors import DeadlineExceeded, FailedPrecondition, ResourceExhausted
from evald.models.base import ModelRequest
from evald.models.runtime import ModelRuntime

from tests.unit.models.kinds import BROKEN, ECHO


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    for name in ("m1", "org/m2"):
        (tmp_path / name).mkdir(parents=True)
    return tmp_path


@pytest.fixture
async def runtime(models_dir: Path) -> AsyncIterator[ModelRuntime]:
    models = ModelRuntime(models_dir, batch_size=8, batch_wait_ms=20)
    yield models
    await models.aclose()


M1 = ModelRequest(ECHO, "m1")
M2 = ModelRequest(ECHO, "org/m2")


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_concurrent_calls_share_forward_passes(runtime: ModelRuntime) -> None:
    await runtime.run(M1, ["warm"])  # the worker starts and loads
    before = runtime.forward_passes
    answers = await asyncio.gather(*(runtime.run(M1, [i, -i]) for i in range(16)))
    # 32 items at 8 per batch: 4 passes, each item answered to its own caller, in order.
    assert runtime.forward_passes - before == 4
    assert list(runtime.batch_sizes)[-4:] == [8, 8, 8, 8]
    for i, answer in enumerate(answers):
        assert [row[0] for row in answer] == [i, -i]
    assert answers[0][0][3] != os.getpid()  # run in a worker process


async def arriving(models: ModelRuntime, index: int, gap: float) -> list[object]:
    """Call ``index`` of a stream, one call every ``gap`` seconds."""
    await asyncio.sleep(index * gap)
    return await models.run(M1, [index])


async def test_a_burst_still_arriving_is_held_for_one_pass(models_dir: Path) -> None:
    # Calls 10 ms apart (half the wait) span 50 ms, more than the 20 ms wait: held while they
    # keep arriving, they go in one pass, not in a first pass of those that came in time.
    models = ModelRuntime(models_dir, batch_size=8, batch_wait_ms=20)
    try:
        await models.run(M1, ["warm"])
        before = models.forward_passes

        await asyncio.gather(*(arriving(models, i, 0.010) for i in range(6)))
        assert models.forward_passes - before == 1
        assert list(models.batch_sizes)[-1] == 6
    finally:
        await models.aclose()


async def test_a_steady_stream_is_cut_after_the_hold_limit(models_dir: Path) -> None:
    # A call every 10 ms for 200 ms never leaves a 20 ms quiet gap: batches are still sent,
    # each at most HOLD_FACTOR waits after it opened.
    models = ModelRuntime(models_dir, batch_size=64, batch_wait_ms=20)
    try:
        await models.run(M1, ["warm"])
        before = models.forward_passes

        await asyncio.gather(*(arriving(models, i, 0.010) for i in range(20)))
        assert models.forward_passes - before >= 2
    finally:
        await models.aclose()


async def test_a_large_call_is_split_by_the_batch_size(runtime: ModelRuntime) -> None:
    answer = await runtime.run(M1, list(range(20)), options={"suffix": "!"})
    assert [row[0] for row in answer] == list(range(20))
    assert [row[1] for row in answer] == [8] * 16 + [4] * 4
    assert {row[4] for row in answer} == {"!"}


async def test_forward_options_are_batched_apart(runtime: ModelRuntime) -> None:
    await runtime.run(M1, ["warm"])
    a, b = await asyncio.gather(
        runtime.run(M1, [1], options={"suffix": "a"}), runtime.run(M1, [2], options={"suffix": "b"})
    )
    assert (a[0][1], a[0][4], b[0][1], b[0][4]) == (1, "a", 1, "b")


async def test_a_deadline_passing_in_the_queue_drops_the_items(runtime: ModelRuntime) -> None:
    await runtime.run(M1, ["warm"])
    before = runtime.forward_passes
    slow = asyncio.ensure_future(runtime.run(M1, [{"sleep": 0.5}]))
    await asyncio.sleep(0.1)  # the slow pass runs: the next call waits in the queue
    with pytest.raises(DeadlineExceeded):
        await runtime.run(M1, ["late"], deadline=time.monotonic() + 0.1)
    await slow
    await runtime.run(M1, ["after"])
    assert runtime.forward_passes - before == 2  # "late" was never run
    with pytest.raises(DeadlineExceeded):
        await runtime.run(M1, ["past"], deadline=time.monotonic() - 1)


async def test_a_cancelled_caller_s_items_are_not_sent(runtime: ModelRuntime) -> None:
    await runtime.run(M1, ["warm"])
    slow = asyncio.ensure_future(runtime.run(M1, [{"sleep": 0.4}]))
    await asyncio.sleep(0.1)
    queued = asyncio.ensure_future(runtime.run(M1, ["cancelled"]))
    await asyncio.sleep(0.05)
    queued.cancel()
    kept = asyncio.ensure_future(runtime.run(M1, ["kept"]))
    await slow
    answer = await kept
    assert answer[0][:2] == ["kept", 1]  # its pass held only its own item
    assert queued.cancelled()


async def test_the_least_recently_used_worker_stops(models_dir: Path) -> None:
    models = ModelRuntime(models_dir, max_loaded_models=1, batch_wait_ms=1)
    try:
        first = (await models.run(M1, [1]))[0][3]
        assert models.process_ids() == {"m1": first}
        second = (await models.run(M2, [2]))[0][3]
        assert models.process_ids() == {"org/m2": second}
        assert gone(first)  # stopped (and reaped) before the second model loaded
        again = (await models.run(M1, [3]))[0][3]
        assert again not in (first, second)
        assert gone(second)
    finally:
        await models.aclose()
    assert gone(again)
    assert models.process_ids() == {}


async def test_a_missing_model_names_where_evald_looked(
    runtime: ModelRuntime, models_dir: Path
) -> None:
    with pytest.raises(FailedPrecondition) as raised:
        await runtime.run(ModelRequest(ECHO, "org/absent"), [1])
    message = raised.value.message
    assert "'org/absent'" in message
    assert str(models_dir / "org/absent") in message
    assert "--models-dir" in message
    assert "EVALD_MODELS_DIR" in message
    assert runtime.process_ids() == {}  # no worker started
    unset = ModelRuntime(None)
    with pytest.raises(FailedPrecondition, match="no models directory is set"):
        await unset.run(M1, [1])


async def test_a_kind_s_load_failure_is_a_failed_precondition(runtime: ModelRuntime) -> None:
    with pytest.raises(FailedPrecondition, match="broken: no weights in"):
        await runtime.run(ModelRequest(BROKEN, "m1"), [1])
    cuda = ModelRuntime(runtime.models_dir, "cuda:0")
    try:
        # This machine has no GPU; without the models extra it has no PyTorch either.
        says = "CUDA is not available" if find_spec("torch") else "needs PyTorch"
        with pytest.raises(FailedPrecondition, match=says):
            await cuda.run(M1, [1])
    finally:
        await cuda.aclose()


async def test_a_worker_that_dies_fails_its_batch_and_restarts(runtime: ModelRuntime) -> None:
    pid = (await runtime.run(M1, ["warm"]))[0][3]
    with pytest.raises(ResourceExhausted, match="killed"):
        await runtime.run(M1, ["die"])
    assert gone(pid)
    answer = await runtime.run(M1, ["back"])
    assert answer[0][0] == "back"
    assert answer[0][3] != pid
