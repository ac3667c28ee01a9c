"""Judge usage in dataset results: per row in ``results.jsonl``, summed in ``aggregation.json``.

A row's record carries what its request cost (:func:`annotate`): ``judge_usage`` on the record
(the whole request) and on each metric result that called a judge (that metric's share), each a
:class:`~evald.judges.usage.Usage` as JSON, present only when a judge call was made or looked
up. A record without its own ``judge_usage`` (one assembled from several requests, each result
annotated with :func:`annotate_result`) costs the sum of its results'. Stored with the row, so
the sums of a job resumed after a restart are exact: rows scored before it keep what they cost,
and no row is scored (or counted) twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evald.judges.usage import Tally, Usage

KEY = "judge_usage"


def annotate(record: dict[str, Any], tally: Tally) -> None:
    """Add the usage of the row's request to its ``record`` (and to each metric result its
    share, ``metrics[i]`` being result ``i``)."""
    if tally.total.empty:
        return
    record[KEY] = tally.total.to_json()
    for i, result in enumerate(record["results"]):
        share = tally.metrics.get(f"metrics[{i}]")
        if share is not None and not share.empty:
            result[KEY] = share.to_json()


def annotate_result(result: dict[str, Any], tally: Tally) -> None:
    """Add the usage of a request that scored one metric alone to that metric's ``result``."""
    if not tally.total.empty:
        result[KEY] = tally.total.to_json()


def total(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """``{"total": usage, "metrics": {label: usage}}`` over the row ``records`` (metrics that
    called no judge left out); None when no row called a judge."""
    overall = Usage()
    metrics: dict[str, Usage] = {}
    for record in records:
        shares = Usage()
        for result in record["results"]:
            if KEY in result:
                label, share = str(result["metric"]), Usage.from_json(result[KEY])
                metrics[label] = metrics.get(label, Usage()) + share
                shares += share
        overall += Usage.from_json(record[KEY]) if KEY in record else shares
    if overall.empty:
        return None
    return {
        "total": overall.to_json(),
        "metrics": {label: usage.to_json() for label, usage in metrics.items()},
    }


def section(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What ``aggregation.json`` gains: ``{"judge_usage": ...}`` (see :func:`total`), or
    nothing when no row called a judge."""
    found = total(records)
    return {} if found is None else {KEY: found}
