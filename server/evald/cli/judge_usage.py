"""Judge usage in ``evald evaluate``: read from the server's trailer, shown under the summary table
and in the HTML report (from ``aggregation.json``'s ``judge_usage``,
:mod:`evald.jobs.judge_usage`)."""

from __future__ import annotations

import html
from typing import Any

import grpc

from evald.judges import usage


async def call_reporting_usage(method: Any, request: Any, **kwargs: Any) -> Any:
    """``method(request, **kwargs)`` (a unary stub method), the usage its server reported in the
    call's trailer added to the open collectors (:func:`evald.judges.usage.add_reported`), also
    for a call that failed."""
    call = method(request, **kwargs)
    try:
        response = await call
    except grpc.aio.AioRpcError as exc:
        _add(exc.trailing_metadata())
        raise
    _add(await call.trailing_metadata())
    return response


def _add(metadata: Any) -> None:
    reported = usage.from_metadata(metadata)
    if reported is not None:
        usage.add_reported(reported)


def describe(counts: dict[str, Any]) -> str:
    """``N calls, X input tokens, Y output tokens`` (and cached calls, calls without usage when
    there are any) of a usage as JSON."""
    text = (
        f"{counts['calls']} calls, {counts['input_tokens']} input tokens, "
        f"{counts['output_tokens']} output tokens"
    )
    if counts["cached_calls"]:
        text += f", {counts['cached_calls']} answered from the cache"
    if counts["calls_without_usage"]:
        text += f"; {counts['calls_without_usage']} calls reported no usage (not in the sums)"
    return text


def summary_lines(aggregation: dict[str, Any]) -> list[str]:
    """The lines under the summary table: the run's judge usage, then each metric's when the
    run has several metrics; none when no judge was called."""
    found = aggregation.get("judge_usage")
    if found is None:
        return []
    lines = [f"judge usage: {describe(found['total'])}"]
    if len(aggregation["metrics"]) > 1:
        width = max(len(label) for label in found["metrics"]) if found["metrics"] else 0
        lines += [
            f"  {label.ljust(width)}  {describe(counts)}"
            for label, counts in found["metrics"].items()
        ]
    return lines


def html_section(aggregation: dict[str, Any]) -> str:
    """The report's judge usage table (run total, then per metric); "" when no judge was
    called."""
    found = aggregation.get("judge_usage")
    if found is None:
        return ""
    columns = ("calls", "cached_calls", "input_tokens", "output_tokens", "calls_without_usage")
    header = "".join(f"<th>{name.replace('_', ' ')}</th>" for name in columns)
    rows = [("all metrics", found["total"]), *found["metrics"].items()]
    body = "".join(
        f"<tr><td>{html.escape(label)}</td>"
        + "".join(f'<td class="num">{int(counts[name])}</td>' for name in columns)
        + "</tr>"
        for label, counts in rows
    )
    return (
        f'<h2>Judge usage</h2><table id="judge-usage"><tr><th>metric</th>{header}</tr>'
        f"{body}</table>"
    )
