"""Judge usage accounting: the Usage sums, and collectors scoped by context (nested, across
tasks, per judge and per metric)."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from types import SimpleNamespace as Obj
from typing import Any

import pytest
from evald.judges import usage
from evald.judges.backends import gemini, openai_compat
from evald.judges.base import JudgeTimeout, Reply, Tokens, TransientError
from evald.judges.usage import CACHED, UNKNOWN, Tally, Usage


def call(tokens_in: int, tokens_out: int) -> Usage:
    return Usage.of_call(Tokens(tokens_in, tokens_out))


def test_usage_sums_and_round_trips() -> None:
    total = call(10, 3) + call(5, 2) + CACHED + UNKNOWN
    assert total == Usage(
        calls=3, cached_calls=1, input_tokens=15, output_tokens=5, calls_without_usage=1
    )
    assert Usage.from_json(total.to_json()) == total
    assert Usage.from_json({"calls": 2}) == Usage(calls=2)  # missing counts are 0
    assert Usage().empty
    assert not CACHED.empty
    assert not UNKNOWN.empty
    bad: Any
    for bad in ([], {"calls": -1}, {"calls": "2"}, {"calls": True}, {"input_tokens": 1.5}):
        with pytest.raises(ValueError, match="judge usage"):
            Usage.from_json(bad)


def test_every_count_is_summed() -> None:
    names = [f.name for f in fields(Usage)]
    one = Usage(**{name: i + 1 for i, name in enumerate(names)})
    two = Usage(**{name: 10 * (i + 1) for i, name in enumerate(names)})
    assert (one + two).to_json() == {name: 11 * (i + 1) for i, name in enumerate(names)}


def test_what_a_failed_call_costs() -> None:
    answered = TransientError("the response has no text", reply=Reply("", Tokens(7, 0)))
    assert usage.cost_of_failure(answered) == call(7, 0)
    assert usage.cost_of_failure(TransientError("no text", reply=Reply(""))) == UNKNOWN
    assert usage.cost_of_failure(JudgeTimeout("late")) == UNKNOWN
    assert usage.cost_of_failure(asyncio.CancelledError()) == UNKNOWN
    assert usage.cost_of_failure(TransientError("HTTP 503", 503)) is None
    assert Usage.of_call(None) == UNKNOWN


def test_nested_collectors_each_count_the_calls_made_inside_them() -> None:
    usage.record("outside", call(1, 1))  # no collector open: counted nowhere
    with usage.collect() as outer:
        usage.record("a", call(10, 1))
        with usage.collect() as inner:
            usage.record("b", call(20, 2))
            usage.record("b", CACHED)
        usage.record("a", UNKNOWN)
    assert inner.total == Usage(calls=1, cached_calls=1, input_tokens=20, output_tokens=2)
    assert outer.total == Usage(
        calls=3, cached_calls=1, input_tokens=30, output_tokens=3, calls_without_usage=1
    )
    assert outer.judges == {
        "a": Usage(calls=2, input_tokens=10, output_tokens=1, calls_without_usage=1),
        "b": Usage(calls=1, cached_calls=1, input_tokens=20, output_tokens=2),
    }
    usage.record("after", call(1, 1))
    assert outer.total.calls == 3  # closed


async def test_tasks_count_in_the_collector_they_were_started_in() -> None:
    async def judged(judge: str, metric: str, tokens: int) -> None:
        with usage.part(metric):
            await asyncio.sleep(0)  # the other tasks run in between
            usage.record(judge, call(tokens, 1))

    async def request(tokens: int) -> Tally:
        with usage.collect() as tally:
            await asyncio.gather(
                judged("j", "metrics[0]", tokens), judged("j", "metrics[1]", tokens * 2)
            )
            task = asyncio.ensure_future(judged("k", "metrics[0]", tokens))
        await task  # started inside the block: it counts there even if it ends after it
        return tally

    first, second = await asyncio.gather(request(100), request(1000))
    assert first.total == Usage(calls=3, input_tokens=400, output_tokens=3)
    assert second.total == Usage(calls=3, input_tokens=4000, output_tokens=3)
    assert first.metrics == {
        "metrics[0]": Usage(calls=2, input_tokens=200, output_tokens=2),
        "metrics[1]": Usage(calls=1, input_tokens=200, output_tokens=1),
    }
    assert set(first.judges) == {"j", "k"}


def test_a_reported_tally_adds_with_its_breakdowns() -> None:
    with usage.collect() as served:
        with usage.part("metrics[1]"):
            usage.record("g", call(3, 4))
        usage.record("g", CACHED)
    trailer = served.encode()
    assert " " not in trailer  # compact
    decoded = Tally.decode(trailer)
    assert decoded.to_json() == served.to_json()
    with usage.collect() as run, usage.collect() as row:
        usage.add_reported(decoded)
        usage.add_reported(decoded)
    for tally in (run, row):
        assert tally.total == Usage(calls=2, cached_calls=2, input_tokens=6, output_tokens=8)
        assert tally.metrics == {"metrics[1]": Usage(calls=2, input_tokens=6, output_tokens=8)}
        assert tally.judges["g"].cached_calls == 2


def test_trailing_metadata_is_read_leniently() -> None:
    with usage.collect() as tally:
        usage.record("g", call(1, 2))
    metadata = (("other", "x"), (usage.TRAILER, tally.encode()))
    found = usage.from_metadata(metadata)
    assert found is not None
    assert found.total == call(1, 2)
    assert usage.from_metadata(None) is None
    assert usage.from_metadata(((usage.TRAILER, "{not json"),)) is None
    assert usage.from_metadata(((usage.TRAILER, '{"calls": -3}'),)) is None
    assert usage.from_metadata(((usage.TRAILER, '{"calls": 1, "metrics": []}'),)) is None


def test_what_each_backend_reads_from_a_response() -> None:
    thinking = Obj(prompt_token_count=9, candidates_token_count=4, thoughts_token_count=6)
    assert gemini._tokens(Obj(usage_metadata=thinking)) == Tokens(9, 10)  # the SDK's models
    assert gemini._tokens(Obj(usage_metadata=Obj(prompt_token_count=9))) == Tokens(9, 0)
    assert gemini._tokens(Obj(usage_metadata=None)) is None
    thinking_json = {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 6}
    assert gemini.usage_tokens(thinking_json) == Tokens(9, 10)  # the REST JSON
    assert gemini.usage_tokens({"promptTokenCount": 9, "toolUsePromptTokenCount": 2}) == Tokens(
        11, 0
    )
    assert gemini.usage_tokens(None) is None
    reported = {"prompt_tokens": 12, "completion_tokens": 7}
    assert openai_compat._tokens({"usage": reported}) == Tokens(12, 7)
    assert openai_compat._tokens({"usage": None}) is None
    assert openai_compat._tokens("a body that is not a completion") is None
