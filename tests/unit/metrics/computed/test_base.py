"""How a computed metric's batch is split between the event loop and the scoring processes:
inline while cheap, off the loop once the rest is estimated to take more than
``OFFLOAD_SECONDS`` of CPU, judged by the loop thread's CPU time, not by the clock."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from evald import scoring
from evald.api import messages as m
from evald.metrics.computed import base
from evald.metrics.computed.base import ComputedMetric

from tests.support import CALL

INSTANCES = 100


class Recording(ComputedMetric[None]):
    """Exact match that spends ``cpu`` seconds of CPU (busy) or ``wait`` seconds of wall time
    (asleep, as a thread waiting for a core) per instance, recording the thread of each."""

    input_field = "exact_match_input"
    result_field = "exact_match_results"

    def __init__(self, cpu: float = 0.0, wait: float = 0.0) -> None:
        self.cpu = cpu
        self.wait = wait
        self.threads: list[int] = []

    def options(self, spec: Any, path: str) -> None:
        return None

    def score(self, instance: Any, options: None, path: str) -> float:
        end = time.thread_time() + self.cpu
        while time.thread_time() < end:
            pass
        time.sleep(self.wait)
        self.threads.append(threading.get_ident())
        return float(instance.prediction == instance.reference)

    def score_batch(self, instances: Sequence[Any], options: None, path: str) -> list[float]:
        return [self.score(instance, options, path) for instance in instances]


@pytest.fixture(autouse=True)
def thread_offload() -> Iterator[None]:
    """Offloaded work goes to a thread, so the test can see which instances left the loop."""
    scoring.configure_scoring(0)
    yield
    scoring.configure_scoring(0)


def run(handler: Recording) -> tuple[list[float], int]:
    """The scores of INSTANCES instances (every third one a mismatch) and the loop's thread."""
    instances = [
        m.ExactMatchInstance(prediction=str(i), reference=str(i if i % 3 else -1))
        for i in range(INSTANCES)
    ]

    async def evaluate() -> tuple[Any, int]:
        metric_input = m.ExactMatchInput(instances=instances)
        result = await handler.evaluate_input(metric_input, "exact_match_input", CALL)
        return result, threading.get_ident()

    result, loop_thread = asyncio.run(evaluate())
    return [v.score for v in result.exact_match_metric_values], loop_thread


EXPECTED = [0.0 if i % 3 == 0 else 1.0 for i in range(INSTANCES)]


def test_cheap_batch_is_scored_on_the_loop() -> None:
    handler = Recording()
    scores, loop_thread = run(handler)
    assert scores == EXPECTED
    assert set(handler.threads) == {loop_thread}


def test_costly_batch_leaves_the_loop_in_order() -> None:
    # 100 x 0.5 ms of CPU: far more than OFFLOAD_SECONDS.
    assert INSTANCES * 0.0005 > 4 * base.OFFLOAD_SECONDS
    handler = Recording(cpu=0.0005)
    scores, loop_thread = run(handler)
    assert scores == EXPECTED
    inline = handler.threads.count(loop_thread)
    assert 0 < inline < INSTANCES  # a start on the loop, the rest elsewhere
    assert len(handler.threads) == INSTANCES


def test_waiting_for_a_core_is_not_mistaken_for_costly_work() -> None:
    # 100 x 0.5 ms of wall time but no CPU: by the clock the rest would look 25x over the
    # budget; it is scored inline all the same, as it costs the loop nothing to speak of.
    assert INSTANCES * 0.0005 > 4 * base.OFFLOAD_SECONDS
    handler = Recording(wait=0.0005)
    scores, loop_thread = run(handler)
    assert scores == EXPECTED
    assert set(handler.threads) == {loop_thread}
