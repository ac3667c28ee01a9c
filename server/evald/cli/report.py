"""What ``evald evaluate`` shows: a plain-text summary table, the errors grouped by message, and
a self-contained HTML report (no scripts, no external files: the run's metadata, per-metric
histograms as inline SVG, worst rows, errors grouped by message)."""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from evald.cli import judge_usage

REPORT_FILE = "report.html"
BINS = 20
WORST_ROWS = 10
MAX_ERRORS = 200
CELL_CHARS = 300
FIRST_ROWS = 5
"""Rows listed per error message."""
TEXT_COLUMNS = ("prompt", "response", "reference")
MAX_EXTRA_COLUMNS = 6
"""Other dataset columns (``id``...) shown in the row tables, first seen first."""
SHOWN_AGGREGATIONS = ("AVERAGE", "STANDARD_DEVIATION", "MINIMUM", "MEDIAN", "MAXIMUM")
"""Aggregations the summary always shows (AVERAGE as the mean)."""
HEADER = ("metric", "count", "errors", "mean", "95% CI", "std", "min", "median", "max")
_ROW_PATH = re.compile(r"rows\[\d+\]")


def _fmt(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.4f}"


def summary_table(aggregation: dict[str, Any]) -> str:
    """One line per metric: count, errors, mean, 95% CI, std, min, median, max, then each
    other requested ``--aggregation``."""
    extra = extra_aggregations(aggregation)
    header = (*HEADER, *(aggregation_header(name) for name in extra))
    rows: list[tuple[str, ...]] = [header]
    for name, m in summary_lines(aggregation):
        rows.append((name, *_cells(m, extra)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def extra_aggregations(aggregation: dict[str, Any]) -> list[str]:
    """Requested aggregations the fixed columns do not show (PERCENTILE_P90...), in order."""
    found: list[str] = []
    for m in aggregation["metrics"]:
        for name in m.get("requested", []):
            if name not in SHOWN_AGGREGATIONS and name not in found:
                found.append(name)
    return found


def aggregation_header(name: str) -> str:
    """``PERCENTILE_P90`` -> ``p90``, ``MODE`` -> ``mode``."""
    return name.removeprefix("PERCENTILE_").lower()


def summary_lines(aggregation: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each metric's summary, followed by its summary per category (``metric [category=x]``)."""
    lines = []
    for m in aggregation["metrics"]:
        lines.append((str(m["metric"]), m))
        for name, category in m.get("categories", {}).items():
            lines.append((f"{m['metric']} [category={name}]", category))
    return lines


def _cells(m: dict[str, Any], extra: Sequence[str] = ()) -> tuple[str, ...]:
    a, ci = m["aggregations"], m["ci95"]
    return (
        str(m["count"]),
        str(m["errors"]),
        _fmt(m["mean"]),
        "-" if ci is None else f"[{_fmt(ci[0])}, {_fmt(ci[1])}]",
        _fmt(a["STANDARD_DEVIATION"]),
        _fmt(a["MINIMUM"]),
        _fmt(a["MEDIAN"]),
        _fmt(a["MAXIMUM"]),
        *(_fmt(a.get(name)) for name in extra),
    )


def histogram(values: Sequence[float], bins: int = BINS) -> tuple[float, float, list[int]]:
    """Counts of ``values`` in ``bins`` equal bins over [0, 1] when they fit, else over
    [min, max]; the last bin is closed."""
    low, high = (0.0, 1.0)
    if values and (min(values) < 0.0 or max(values) > 1.0):
        low, high = min(values), max(values)
    if high == low:
        high = low + 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - low) / (high - low) * bins), bins - 1)] += 1
    return low, high, counts


def svg_histogram(values: Sequence[float], title: str) -> str:
    """An inline SVG bar chart of the score distribution: score on the x axis (ticks at the
    quarters), rows on the y axis, each bar's count above it."""
    low, high, counts = histogram(values)
    width, height, left, pad = 520, 160, 44, 28
    top = max(max(counts), 1)
    bar = (width - left - pad) / len(counts)
    base = pad + height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hist" width="{width}" '
        f'height="{height + 3 * pad}" role="img" aria-label="{html.escape(title)}">',
        f'<line x1="{left}" y1="{base}" x2="{width - pad}" y2="{base}" stroke="#555"/>',
        f'<line x1="{left}" y1="{pad}" x2="{left}" y2="{base}" stroke="#555"/>',
    ]
    for count in sorted({0, top // 2, top}):  # y ticks
        y = base - count / top * height
        parts.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{count}</text>'
        )
    for i in range(5):  # x ticks at the quarters of the range
        x = left + i / 4 * (width - left - pad)
        value = low + i / 4 * (high - low)
        parts.append(
            f'<line x1="{x:.1f}" y1="{base}" x2="{x:.1f}" y2="{base + 4}" stroke="#555"/>'
            f'<text x="{x:.1f}" y="{base + 16}" font-size="11" text-anchor="middle">'
            f"{_fmt(value)}</text>"
        )
    for i, count in enumerate(counts):
        h = count / top * height
        x = left + i * bar
        parts.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar - 1:.1f}" '
            f'height="{h:.1f}" fill="#3b6ea8"><title>{count}</title></rect>'
        )
        if count:
            parts.append(
                f'<text class="count" x="{x + bar / 2:.1f}" y="{base - h - 3:.1f}" '
                f'font-size="10" text-anchor="middle">{count}</text>'
            )
    parts.append(
        f'<text x="{(left + width - pad) / 2:.1f}" y="{base + 34}" font-size="11" '
        'text-anchor="middle">score</text>'
        f'<text x="12" y="{pad + height / 2:.1f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {pad + height / 2:.1f})">rows</text></svg>'
    )
    return "".join(parts)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "…"
    return html.escape(text)


def error_groups(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors grouped by code and message (row numbers in a message read ``rows[i]``), most
    frequent first: ``{"code", "message", "count", "metrics", "first_rows"}``; ``count``
    counts a row once per metric that erred on it."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        for result in record["results"]:
            error = result["error"]
            if error is None:
                continue
            message = _ROW_PATH.sub("rows[i]", str(error["message"]))
            group = groups.setdefault(
                (str(error["code"]), message),
                {"code": error["code"], "message": message, "count": 0, "metrics": [],
                 "first_rows": []},
            )  # fmt: skip
            group["count"] += 1
            if result["metric"] not in group["metrics"]:
                group["metrics"].append(result["metric"])
            rows = group["first_rows"]
            if len(rows) < FIRST_ROWS and record["row"] not in rows:
                rows.append(record["row"])
    return sorted(groups.values(), key=lambda g: (-g["count"], g["first_rows"][0]))


def error_text(groups: Sequence[dict[str, Any]]) -> str:
    """The grouped errors for the terminal, one line per message."""
    total = sum(group["count"] for group in groups)
    lines = [f"errors: {total} ({len(groups)} distinct)"]
    for group in groups:
        message = group["message"]
        if len(message) > CELL_CHARS:
            message = message[:CELL_CHARS] + "…"
        lines.append(
            f"  {group['count']} x {group['code']} [{', '.join(group['metrics'])}] "
            f"first row {group['first_rows'][0]}: {message}"
        )
    return "\n".join(lines)


def extra_columns(records: Sequence[dict[str, Any]]) -> list[str]:
    """Dataset columns besides prompt, response and reference (``id`` first), first seen
    first, at most :data:`MAX_EXTRA_COLUMNS`."""
    found: list[str] = []
    for record in records:
        for column in record["input"]:
            if column not in TEXT_COLUMNS and column not in found:
                found.append(column)
    found.sort(key=lambda column: column != "id")  # stable: the rest keep their order
    return found[:MAX_EXTRA_COLUMNS]


CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.num{text-align:right;font-variant-numeric:tabular-nums}
section{margin-bottom:2em} .err{color:#a00}
"""


def html_report(title: str, aggregation: dict[str, Any], records: Sequence[dict[str, Any]]) -> str:
    """The whole report as one HTML document; ``aggregation["run"]``, when present, is the
    run's metadata (see :func:`evald.cli.evaluate.run_metadata`)."""
    extra = extra_aggregations(aggregation)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p id="rows">{aggregation["rows"]} rows, {aggregation["rows_failed"]} with errors</p>',
    ]
    if aggregation.get("run"):
        out.append(_run_section(aggregation["run"], aggregation["rows"]))
    out.append(
        '<h2>Summary</h2><table id="summary"><tr>'
        + "".join(f"<th>{h}</th>" for h in (*HEADER, *map(aggregation_header, extra)))
        + "</tr>"
    )
    for name, m in summary_lines(aggregation):
        out.append(
            f"<tr><td>{html.escape(name)}</td>"
            + "".join(f'<td class="num">{html.escape(c)}</td>' for c in _cells(m, extra))
            + "</tr>"
        )
    out.append("</table>")
    out.append(judge_usage.html_section(aggregation))
    columns = extra_columns(records)
    for i, m in enumerate(aggregation["metrics"]):
        out.append(_metric_section(i, m, records, columns))
    out.append(_errors_section(records))
    out.append("</body></html>")
    return "\n".join(out)


def _run_section(run: dict[str, Any], rows: int) -> str:
    facts = [
        ("date", run.get("date")),
        ("evald version", run.get("evald_version")),
        ("scored", run.get("where")),
        ("data", run.get("data")),
        ("rows", rows),
        ("duration", run.get("duration")),
        ("judge", run.get("judge") or "as configured"),
        ("aggregations", ", ".join(run.get("aggregations") or []) or "default"),
    ]
    parts = ['<section id="run"><h2>Run</h2><table>']
    parts += [f"<tr><th>{name}</th><td>{_cell(value)}</td></tr>" for name, value in facts]
    parts.append("</table><table><tr><th>metric</th><th>options</th></tr>")
    for metric in run.get("metrics", []):
        options = {k: v for k, v in metric.items() if k != "metric"}
        shown = json.dumps(options, ensure_ascii=False) if options else ""
        parts.append(f"<tr><td>{_cell(metric['metric'])}</td><td>{_cell(shown)}</td></tr>")
    parts.append("</table></section>")
    return "\n".join(parts)


def _metric_section(
    i: int, metric: dict[str, Any], records: Sequence[dict[str, Any]], columns: Sequence[str]
) -> str:
    name = metric["metric"]
    scored = [
        (r["results"][i]["score"], r) for r in records if r["results"][i]["score"] is not None
    ]
    parts = [
        f'<section class="metric" data-metric="{html.escape(name)}">',
        f"<h2>{html.escape(name)}</h2>",
        svg_histogram([s for s, _ in scored], f"distribution of {name}"),
    ]
    extra: dict[str, Any] = {
        k: metric[k] for k in ("win_rates", "classification", "dataset_scores") if k in metric
    }
    by_category = {
        name: {k: c[k] for k in ("classification", "dataset_scores") if k in c}
        for name, c in metric.get("categories", {}).items()
    }
    if any(by_category.values()):
        extra["categories"] = by_category
    if extra:
        parts.append(f"<pre>{html.escape(json.dumps(extra, indent=2))}</pre>")
    worst = sorted(scored, key=lambda pair: (pair[0], pair[1]["row"]))[:WORST_ROWS]
    headers = ("row", "score", *columns, *TEXT_COLUMNS, "explanation")
    parts.append(
        '<h3>Worst rows</h3><table class="worst"><tr>'
        + "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        + "</tr>"
    )
    for score, record in worst:
        row = record["input"]
        parts.append(
            f'<tr><td class="num">{record["row"]}</td><td class="num">{_fmt(score)}</td>'
            + "".join(f"<td>{_cell(row.get(k, ''))}</td>" for k in (*columns, *TEXT_COLUMNS))
            + f"<td>{_cell(record['results'][i]['explanation'] or '')}</td></tr>"
        )
    parts.append("</table></section>")
    return "\n".join(parts)


def _errors_section(records: Sequence[dict[str, Any]]) -> str:
    groups = error_groups(records)
    total = sum(group["count"] for group in groups)
    parts = [f'<section id="errors"><h2>Errors ({total})</h2>']
    if groups:
        parts.append(
            "<table><tr><th>count</th><th>code</th><th>message</th><th>metrics</th>"
            "<th>first rows</th></tr>"
        )
        for group in groups[:MAX_ERRORS]:
            first = ", ".join(str(row) for row in group["first_rows"])
            parts.append(
                f'<tr class="err"><td class="num">{group["count"]}</td>'
                f"<td>{_cell(group['code'])}</td><td>{_cell(group['message'])}</td>"
                f"<td>{_cell(', '.join(group['metrics']))}</td><td>{first}</td></tr>"
            )
        parts.append("</table>")
        if len(groups) > MAX_ERRORS:
            parts.append(f"<p>… and {len(groups) - MAX_ERRORS} more messages (results.jsonl)</p>")
    else:
        parts.append("<p>No errors.</p>")
    parts.append("</section>")
    return "\n".join(parts)
