"""Asserting evald metrics in tests: :class:`Evald`, which the pytest plugin
(:mod:`evald.testing.plugin`) hands to tests as the ``evald`` fixture.

    def test_answer(evald):
        evald.assert_metric("rouge:rougeL", response=answer, reference="Paris", at_least=0.5)
        evald.check({"response": answer, "city": "Paris"}, {"icontains": "{{city}}"})

Scoring is in this process (the first call builds evald's metrics), or through the server at
``server`` (``HOST:PORT``). Importing this module loads nothing heavy: a test session that
never scores pays nothing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["Evald", "EvaldError"]

T = TypeVar("T")
Data = str | Path | Sequence[Mapping[str, Any]]
MAX_CONCURRENT_ROWS = 16


class EvaldError(Exception):
    """A score could not be computed (the metric erred, the server is unreachable, ...)."""


class Evald:
    """Scores rows with evald's metrics and asserts on the scores.

    ``server``: ``HOST:PORT`` of an evald server, None to score in this process. ``judge``:
    the judge model of judge metrics and rubrics (None: the default judge). Calls block; they
    run on an event loop of this object's own (in a thread), so they work in async tests too.
    Call :meth:`close` when done (the fixture does).
    """

    def __init__(self, server: str | None = None, judge: str | None = None) -> None:
        self.server = server
        self.judge = judge
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._evaluate: Any = None
        self._close: Any = None

    # -- scoring

    def score(self, metric: str, row: Mapping[str, Any] | None = None, **fields: Any) -> float:
        """The score of ``metric`` (as ``--metric`` names it: ``bleu``, ``rouge:rougeL``,
        ``nemo/f1``, ``NAME:{json}``) on one row: ``row`` and/or its fields as keywords
        (``response=``, ``reference=``, ``prompt=``, ...). EvaldError when it cannot score."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        parsed = _metric(metric)
        result = self._run(self._score_rows(metric, parsed, [{**(row or {}), **fields}]))[0]
        if result["error"] is not None:
            error = result["error"]
            raise EvaldError(f"{metric}: {error['code']}: {error['message']}")
        if result["score"] is None:
            raise EvaldError(f"{metric}: no score (NaN)")
        return float(result["score"])

    def assert_metric(
        self,
        metric: str,
        row: Mapping[str, Any] | None = None,
        *,
        at_least: float | None = None,
        at_most: float | None = None,
        **fields: Any,
    ) -> float:
        """Assert ``metric``'s score on one row is at least ``at_least`` and/or at most
        ``at_most``; returns the score."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        if at_least is None and at_most is None:
            raise TypeError("assert_metric needs at_least or at_most")
        values = {**(row or {}), **fields}
        try:
            value = self.score(metric, values)
        except EvaldError as exc:
            raise AssertionError(f"evald: {exc}") from None
        low_ok = at_least is None or value >= at_least
        high_ok = at_most is None or value <= at_most
        if not (low_ok and high_ok):
            bound = f"< {at_least:g}" if not low_ok else f"> {at_most:g}"
            raise AssertionError(f"evald: {metric} = {value:.4f} {bound}\n{_row_text(values)}")
        return value

    def assert_dataset(
        self,
        data: Data,
        *,
        metric: str,
        mean_at_least: float | None = None,
        mean_at_most: float | None = None,
    ) -> float:
        """Assert ``metric``'s mean over a dataset (a .jsonl/.json/.csv file, or rows) is at
        least ``mean_at_least`` and/or at most ``mean_at_most``; a row the metric cannot score
        fails the assertion. Returns the mean."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        if mean_at_least is None and mean_at_most is None:
            raise TypeError("assert_dataset needs mean_at_least or mean_at_most")
        rows = _rows(data)
        if not rows:
            raise AssertionError("evald: the dataset has no rows")
        results = self._run(self._score_rows(metric, _metric(metric), rows))
        errors = [(i, r["error"]) for i, r in enumerate(results) if r["error"] is not None]
        if errors:
            i, error = errors[0]
            raise AssertionError(
                f"evald: {metric} failed on {len(errors)} of {len(rows)} rows; "
                f"row {i}: {error['code']}: {error['message']}"
            )
        scores = [r["score"] for r in results]
        scored = [(i, float(s)) for i, s in enumerate(scores) if s is not None]
        if not scored:
            raise AssertionError(f"evald: {metric} gave no score on any row")
        mean = sum(s for _, s in scored) / len(scored)
        low_ok = mean_at_least is None or mean >= mean_at_least
        high_ok = mean_at_most is None or mean <= mean_at_most
        if not (low_ok and high_ok):
            bound = f"< {mean_at_least:g}" if not low_ok else f"> {mean_at_most:g}"
            ordered = sorted(scored, key=lambda item: item[1], reverse=low_ok)[:3]
            worst = ", ".join(f"row {i}: {s:.4f}" for i, s in ordered)
            raise AssertionError(
                f"evald: {metric} mean {mean:.4f} {bound} over {len(scored)} rows "
                f"({'lowest' if not low_ok else 'highest'}: {worst})"
            )
        return mean

    def check(
        self, row: Mapping[str, Any], assertion: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> None:
        """Assert eval-file assertions on ``row``: one (``{"contains": "{{expected}}"}``,
        ``{"metric": "bleu", "threshold": 0.3}``, ``{"rubric": "polite"}``...) or a list."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        from evald.cli import assertions

        raw = [assertion] if isinstance(assertion, Mapping) else list(assertion)
        try:
            checks = assertions.parse_list(raw, "assert")
            texts = assertions.metric_texts(checks)
            metrics = [(text, _metric(text)) for text in texts]
        except assertions.SpecError as exc:
            raise ValueError(f"evald.check: {exc}") from None
        scored = bool(metrics) or any(a.type == "rubric" for a in checks)
        evaluate = self._run(self._evaluator()) if scored else None
        _, outcomes = self._run(
            assertions.check_row(evaluate, 0, row, checks, metrics, self._autorater())
        )
        failed = [
            f"  {a.where} {a.label}: {o.reason}"
            for a, o in zip(checks, outcomes, strict=True)
            if not o.passed
        ]
        if failed:
            raise AssertionError(
                f"evald: {len(failed)} of {len(checks)} assertion(s) failed\n"
                + "\n".join(failed)
                + f"\n{_row_text(row)}"
            )

    # -- the event loop and the evaluator

    def close(self) -> None:
        """Close the evaluator (and the server connection) and stop the event loop."""
        if self._loop is None:
            return
        if self._close is not None:
            self._run(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = self._evaluate = self._close = None

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="evald-testing", daemon=True
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def _evaluator(self) -> Any:
        if self._evaluate is None:
            import argparse

            from evald.cli import evaluate

            # The command's own defaults, so every connection flag it has applies here too.
            parser = argparse.ArgumentParser()
            evaluate.add_arguments(parser)
            args = parser.parse_args(["--server", self.server] if self.server else [])
            try:
                self._evaluate, self._close = await evaluate._evaluator(args)
            except evaluate.RunFailed as exc:
                raise EvaldError(str(exc)) from None
        return self._evaluate

    def _autorater(self) -> Any:
        if self.judge is None:
            return None
        from evald import api

        return api.messages.AutoraterConfig(autorater_model=self.judge)

    async def _score_rows(
        self, metric: str, parsed: Any, rows: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """Each row's result of ``metric`` (its text, and ``parsed``, its ``Metric``):
        ``score``, ``explanation``, ``error``."""
        from evald.cli.evaluate import score_row

        evaluate = await self._evaluator()
        labels = [metric]
        autorater = self._autorater()
        limit = asyncio.Semaphore(MAX_CONCURRENT_ROWS)

        async def one(index: int, row: Mapping[str, Any]) -> dict[str, Any]:
            async with limit:
                record = await score_row(evaluate, [parsed], labels, index, dict(row), autorater)
            return dict(record["results"][0])

        return list(await asyncio.gather(*(one(i, row) for i, row in enumerate(rows))))


def _metric(text: str) -> Any:
    __tracebackhide__ = True
    from evald.cli.evaluate import UsageError, parse_metric

    try:
        return parse_metric(text)
    except UsageError as exc:
        raise ValueError(f"evald: {exc}") from None


def _rows(data: Data) -> list[Mapping[str, Any]]:
    if isinstance(data, str | Path):
        from evald.errors import EvalError
        from evald.jobs import sources

        try:
            return list(sources.read_rows([str(data)], None))
        except EvalError as exc:
            raise ValueError(f"evald: {data}: {exc.message}") from None
    return list(data)


def _row_text(row: Mapping[str, Any]) -> str:
    """The row's fields, one a line, long values cut."""
    lines = []
    for key, value in row.items():
        text = value if isinstance(value, str) else repr(value)
        lines.append(f"  {key}: {text if len(text) <= 200 else text[:197] + '...'}")
    return "row:\n" + "\n".join(lines)
