"""Judge usage accounting: what the judge calls of a request, a dataset row or a run cost.

Every judge call goes through :meth:`evald.judges.runtime.Session.ask`, which hands its cost to
:func:`record`: the Prometheus counters of the judge, and every :class:`Tally` open where the
call is made (:func:`collect`). A call counts in :class:`Usage` when it may have cost tokens:

- answered (usable or not): ``calls``, plus the tokens the endpoint reported, or
  ``calls_without_usage`` when it reported none;
- given up while the judge was working on it (its timeout, the request's deadline, the caller
  went away): ``calls`` and ``calls_without_usage``, the judge may have billed it;
- answered from the judge cache: ``cached_calls`` only, no tokens;
- refused with an HTTP error or a connection failure: not counted (nothing was generated; the
  call is still in ``evald_judge_calls_total`` by outcome).

Why a context variable: the scope to account for is chosen by whoever runs the work (one RPC,
one row of a dataset job, a whole ``evald evaluate`` run, nested), far from where judge calls are
made, through every metric and the metrics they call. :class:`evald.call.Call` is shared by
requests (computed metrics get one Call for all), so it cannot hold one request's tally, and
passing a tally through every metric signature would add a parameter that only accounting reads.
Scoping follows the context: a task started inside :func:`collect` inherits it (asyncio copies the
context at task creation; the tally is one mutable object the copies share), and nested
collectors each count the call (a row's tally and its run's).

Attribution:

- The judge cache is shared by every request of a server: the request that called the judge pays
  the tokens, a later request answered from the cache counts a cached call. Concurrent requests
  asking the same uncached question each call the judge (in-flight calls are not coalesced) and
  each pays its own.
- Judge calls run on the event loop of the process serving the request (scoring processes run
  computed metrics only). A request served elsewhere (``evald evaluate --server``) reports its
  usage in the ``evald-judge-usage`` trailer (:data:`TRAILER`); the caller adds it to its own
  collectors with :func:`add_reported`.
- Within a request, :func:`part` names the metric a call is made for (the Metric API's
  ``metrics[i]``), so a tally also holds the cost per metric.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

from evald.call import USAGE_HEADER, USAGE_TRAILER
from evald.judges.base import JudgeCallError, JudgeTimeout, Tokens
from evald.ops import telemetry

TRAILER = USAGE_TRAILER
"""gRPC trailing metadata of EvaluateInstances and GenerateInstanceRubrics: the request's usage
as compact JSON (:meth:`Tally.encode`), sent when it made or looked up any judge call."""
HEADER = USAGE_HEADER
"""The HTTP gateway's response header carrying the same JSON."""


@dataclass(frozen=True)
class Usage:
    """Judge calls and tokens, summed over any number of calls."""

    calls: int = 0
    """Calls that may have cost tokens: answered by the judge, or given up while it worked."""
    cached_calls: int = 0
    """Answers from the judge cache (no tokens)."""
    input_tokens: int = 0
    output_tokens: int = 0
    """Generated tokens, thinking included."""
    calls_without_usage: int = 0
    """Those of ``calls`` whose tokens are unknown: their tokens are not in the sums."""

    def __add__(self, other: Usage) -> Usage:
        # Spelled out, not a loop over fields(): it runs several times per judge call.
        return Usage(
            self.calls + other.calls,
            self.cached_calls + other.cached_calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.calls_without_usage + other.calls_without_usage,
        )

    @property
    def empty(self) -> bool:
        """No call counted, not even from the cache."""
        return self.calls == 0 and self.cached_calls == 0

    def to_json(self) -> dict[str, int]:
        """Every count, by field name."""
        return {f.name: getattr(self, f.name) for f in fields(Usage)}

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        """The usage :meth:`to_json` wrote (missing counts are 0); ValueError if it is not."""
        if not isinstance(data, Mapping):
            raise ValueError("judge usage is not a JSON object")
        counts = {f.name: data.get(f.name, 0) for f in fields(Usage)}
        for name, count in counts.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"judge usage {name} is not a count: {count!r}")
        return cls(**counts)

    @classmethod
    def of_call(cls, tokens: Tokens | None) -> Usage:
        """The cost of one answered call, from the usage its endpoint reported (if any)."""
        if tokens is None:
            return UNKNOWN
        return cls(calls=1, input_tokens=tokens.input, output_tokens=tokens.output)


UNKNOWN = Usage(calls=1, calls_without_usage=1)
"""One call whose tokens are unknown."""
CACHED = Usage(cached_calls=1)
"""One answer from the judge cache."""


def cost_of_failure(exc: BaseException) -> Usage | None:
    """The cost of a judge call that raised ``exc``; None when it cannot have cost tokens."""
    if isinstance(exc, JudgeCallError) and exc.reply is not None:
        return Usage.of_call(exc.reply.tokens)  # answered, unusably
    if isinstance(exc, (JudgeTimeout, asyncio.CancelledError)):
        return UNKNOWN  # the judge may have generated (and billed) an answer nobody read
    return None


class Tally:
    """What the judge calls counted in one :func:`collect` cost: in total, per judge (its name
    in the judge config) and per metric of a request (the :func:`part` it was made in)."""

    def __init__(self) -> None:
        self.total = Usage()
        self.judges: dict[str, Usage] = {}
        self.metrics: dict[str, Usage] = {}

    def add(self, usage: Usage, judge: str | None = None, metric: str | None = None) -> None:
        """Count ``usage`` (of ``judge``, for ``metric`` when known)."""
        self.total += usage
        if judge is not None:
            self.judges[judge] = self.judges.get(judge, Usage()) + usage
        if metric is not None:
            self.metrics[metric] = self.metrics.get(metric, Usage()) + usage

    def add_tally(self, other: Tally) -> None:
        """Count everything ``other`` counted, with its breakdowns."""
        self.total += other.total
        for judge, usage in other.judges.items():
            self.judges[judge] = self.judges.get(judge, Usage()) + usage
        for metric, usage in other.metrics.items():
            self.metrics[metric] = self.metrics.get(metric, Usage()) + usage

    def to_json(self) -> dict[str, Any]:
        """The total's counts, then ``judges`` and ``metrics`` (each only when not empty)."""
        data: dict[str, Any] = self.total.to_json()
        if self.judges:
            data["judges"] = {name: u.to_json() for name, u in sorted(self.judges.items())}
        if self.metrics:
            data["metrics"] = {name: u.to_json() for name, u in sorted(self.metrics.items())}
        return data

    @classmethod
    def from_json(cls, data: Any) -> Tally:
        """The tally :meth:`to_json` wrote; ValueError if it is not one."""
        tally = cls()
        tally.total = Usage.from_json(data)
        for key, target in (("judges", tally.judges), ("metrics", tally.metrics)):
            found = data.get(key, {})
            if not isinstance(found, Mapping):
                raise ValueError(f"judge usage {key} is not a JSON object")
            target.update({str(name): Usage.from_json(u) for name, u in found.items()})
        return tally

    def encode(self) -> str:
        """Compact JSON (the :data:`TRAILER` value)."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def decode(cls, text: str | bytes) -> Tally:
        """The tally :meth:`encode` wrote; ValueError if it is not one."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"judge usage is not JSON: {exc}") from None
        return cls.from_json(data)


_collectors: ContextVar[tuple[Tally, ...]] = ContextVar("evald_judge_usage", default=())
"""The tallies open in this context, outermost first."""
_metric: ContextVar[str | None] = ContextVar("evald_judge_usage_metric", default=None)
"""The metric of the request that judge calls in this context are made for."""


@contextmanager
def collect() -> Iterator[Tally]:
    """Count every judge call made inside the ``with`` block, and in tasks it starts, in the
    tally it yields (calls also count in the collectors around it)."""
    tally = Tally()
    token = _collectors.set((*_collectors.get(), tally))
    try:
        yield tally
    finally:
        _collectors.reset(token)


@contextmanager
def part(metric: str) -> Iterator[None]:
    """Judge calls made inside the block are for ``metric`` (e.g. ``metrics[0]``)."""
    token = _metric.set(metric)
    try:
        yield
    finally:
        _metric.reset(token)


def record(judge: str, usage: Usage) -> None:
    """Count one judge call's cost: the judge's Prometheus counters and every open tally."""
    if usage.cached_calls:
        telemetry.JUDGE_CACHE_HITS.labels(judge).inc(usage.cached_calls)
    if usage.calls:
        telemetry.JUDGE_USAGE_CALLS.labels(judge).inc(usage.calls)
    if usage.calls_without_usage:
        telemetry.JUDGE_CALLS_WITHOUT_USAGE.labels(judge).inc(usage.calls_without_usage)
    if usage.input_tokens:
        telemetry.JUDGE_INPUT_TOKENS.labels(judge).inc(usage.input_tokens)
    if usage.output_tokens:
        telemetry.JUDGE_OUTPUT_TOKENS.labels(judge).inc(usage.output_tokens)
    metric = _metric.get()
    for tally in _collectors.get():
        tally.add(usage, judge, metric)


def add_reported(reported: Tally) -> None:
    """Count, in every open tally, the usage a server reported for a request this process sent
    it (its judges' calls were counted in that server's Prometheus counters, not here)."""
    for tally in _collectors.get():
        tally.add_tally(reported)


def from_metadata(metadata: Any) -> Tally | None:
    """The usage in a call's trailing metadata, None when there is none (or it is unreadable:
    accounting never fails a call)."""
    for key, value in metadata or ():
        if key == TRAILER:
            try:
                return Tally.decode(value)
            except ValueError:
                return None
    return None
