"""Answered calls are recorded together, at most ``calls.FLUSH_SECONDS`` after the first of
them: one write of their log lines, in order, and their Prometheus figures; outside a loop, at
a scrape, past ``calls.MAX_PENDING`` records and at exit, at once."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator

import pytest
from evald import logs
from evald.ops import calls, telemetry
from prometheus_client import REGISTRY


class Stream:
    """A log stream that keeps each write."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> None:
        self.writes.append(text)

    def flush(self) -> None:
        pass

    def instances(self) -> list[int]:
        return [json.loads(line)["instances"] for text in self.writes for line in text.splitlines()]


@pytest.fixture
def stream(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stream]:
    """Request lines written directly (as in a serving process) to a :class:`Stream`."""
    root, evald = logging.getLogger(), logging.getLogger("evald")
    saved = (root.handlers[:], root.level, evald.handlers[:], evald.level, evald.propagate)
    monkeypatch.setattr(logs, "_direct", None)
    logs.configure("INFO")
    logs.write_request_lines_directly()
    assert logs._direct is not None
    out = Stream()
    monkeypatch.setattr(logs._direct, "stream", out)
    yield out
    calls.flush()
    root.handlers[:], root.level = saved[0], saved[1]
    evald.handlers[:], evald.level, evald.propagate = saved[2], saved[3], saved[4]


def requests_total(metric: str, code: str = "OK") -> float:
    value = REGISTRY.get_sample_value(
        "evald_requests_total", {"method": "/m", "metric": metric, "code": code}
    )
    return value or 0.0


def test_records_of_one_interval_are_written_together_in_order(stream: Stream) -> None:
    async def answer() -> list[int]:
        written = []
        for i in range(5):
            calls.record("/m", "turn_input", i, "OK", 0.001)
            await asyncio.sleep(0)  # other loop turns pass: nothing is written yet
            written.append(len(stream.writes))
        await asyncio.sleep(calls.FLUSH_SECONDS * 2)
        return written

    assert asyncio.run(answer()) == [0] * 5
    assert len(stream.writes) == 1  # one write for the five lines
    assert stream.instances() == list(range(5))
    calls.record("/m", "turn_input", 9, "OK", 0.001)  # outside a loop: written at once
    assert stream.instances() == [0, 1, 2, 3, 4, 9]


def test_direct_line_is_the_formatted_request_line(stream: Stream) -> None:
    calls.record("/pkg.Service/Method", "bleu_input", 3, "NOT_FOUND", 0.00123456)
    (line,) = stream.writes[0].splitlines()
    fields = json.loads(line)
    assert {k: v for k, v in fields.items() if k != "ts"} == {
        "level": "info",
        "logger": "evald.request",
        "msg": "request",
        "method": "/pkg.Service/Method",
        "metric": "bleu_input",
        "instances": 3,
        "code": "NOT_FOUND",
        "ms": 1.235,
    }


def test_counts_reach_prometheus_after_the_turn(stream: Stream) -> None:
    telemetry.load()
    before = requests_total("count_input"), requests_total("count_input", "INTERNAL")

    async def answer() -> int:
        for code in ("OK", "OK", "INTERNAL"):
            calls.record("/m", "count_input", 1, code, 0.002)
        written_before_the_interval = len(stream.writes)  # (reading a metric would flush)
        await asyncio.sleep(calls.FLUSH_SECONDS * 2)
        return written_before_the_interval

    assert asyncio.run(answer()) == 0
    assert len(stream.writes) == 1
    assert requests_total("count_input") - before[0] == 2
    assert requests_total("count_input", "INTERNAL") - before[1] == 1
    seconds = REGISTRY.get_sample_value(
        "evald_request_duration_seconds_count", {"method": "/m", "metric": "count_input"}
    )
    assert seconds is not None
    assert seconds >= 3


def test_a_scrape_records_pending_calls_first(stream: Stream) -> None:
    telemetry.load()
    before = requests_total("scrape_input")

    async def answer_then_scrape() -> float:
        calls.record("/m", "scrape_input", 1, "OK", 0.001)
        calls.record("/m", "scrape_input", 1, "OK", 0.001)
        return requests_total("scrape_input") - before  # collects: runs the pending flush

    assert asyncio.run(answer_then_scrape()) == 2
    assert stream.instances() == [1, 1]  # written once, by the scrape's flush


def test_a_loop_closed_with_a_flush_pending_does_not_hold_later_records(stream: Stream) -> None:
    loop = asyncio.new_event_loop()

    async def answer() -> None:
        calls.record("/m", "closed_input", 1, "OK", 0.001)

    loop.run_until_complete(answer())  # the flush it scheduled never runs
    loop.close()
    calls.flush()
    stream.writes.clear()

    async def answer_again() -> None:
        calls.record("/m", "closed_input", 2, "OK", 0.001)
        await asyncio.sleep(calls.FLUSH_SECONDS * 2)

    asyncio.run(answer_again())
    assert stream.instances() == [2]


def test_too_many_pending_records_are_written_at_once(
    stream: Stream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls, "MAX_PENDING", 3)

    async def answer() -> int:
        for i in range(4):
            calls.record("/m", "burst_input", i, "OK", 0.001)
        return len(stream.writes)

    assert asyncio.run(answer()) == 1  # the third record wrote all three, in the same turn
    assert stream.instances() == [0, 1, 2]
    calls.flush()
    assert stream.instances() == [0, 1, 2, 3]
