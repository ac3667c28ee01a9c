"""What ``evald evaluate`` shows: a plain-text summary table and a self-contained HTML report
(no scripts, no external files: per-metric histograms as inline SVG, worst rows, errors)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from typing import Any

from evald.cli import judge_usage

BINS = 20
WORST_ROWS = 10
MAX_ERRORS = 200
CELL_CHARS = 300


def _fmt(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.4f}"


def summary_table(aggregation: dict[str, Any]) -> str:
    """One line per metric: count, errors, mean, 95% CI, std, min, median, max."""
    header = ("metric", "count", "errors", "mean", "95% CI", "std", "min", "median", "max")
    rows: list[tuple[str, ...]] = [header]
    for name, m in summary_lines(aggregation):
        rows.append((name, *_cells(m)))
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


def summary_lines(aggregation: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each metric's summary, followed by its summary per category (``metric [category=x]``)."""
    lines = []
    for m in aggregation["metrics"]:
        lines.append((str(m["metric"]), m))
        for name, category in m.get("categories", {}).items():
            lines.append((f"{m['metric']} [category={name}]", category))
    return lines


def _cells(m: dict[str, Any]) -> tuple[str, ...]:
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
    """An inline SVG bar chart of the score distribution."""
    low, high, counts = histogram(values)
    width, height, pad = 480, 160, 24
    top = max(max(counts), 1)
    bar = (width - 2 * pad) / len(counts)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hist" width="{width}" '
        f'height="{height + 2 * pad}" role="img" aria-label="{html.escape(title)}">',
        f'<line x1="{pad}" y1="{pad + height}" x2="{width - pad}" y2="{pad + height}" '
        'stroke="#555"/>',
    ]
    for i, count in enumerate(counts):
        h = count / top * height
        x = pad + i * bar
        parts.append(
            f'<rect x="{x:.1f}" y="{pad + height - h:.1f}" width="{bar - 1:.1f}" '
            f'height="{h:.1f}" fill="#3b6ea8"><title>{count}</title></rect>'
        )
    parts.append(
        f'<text x="{pad}" y="{height + 2 * pad - 4}" font-size="11">{_fmt(low)}</text>'
        f'<text x="{width - pad}" y="{height + 2 * pad - 4}" font-size="11" '
        f'text-anchor="end">{_fmt(high)}</text>'
        f'<text x="{pad}" y="{pad - 8}" font-size="11">max bin: {top} rows</text></svg>'
    )
    return "".join(parts)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "…"
    return html.escape(text)


CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.num{text-align:right;font-variant-numeric:tabular-nums}
section{margin-bottom:2em} .err{color:#a00}
"""


def html_report(title: str, aggregation: dict[str, Any], records: Sequence[dict[str, Any]]) -> str:
    """The whole report as one HTML document."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p id="rows">{aggregation["rows"]} rows, {aggregation["rows_failed"]} with errors</p>',
        '<h2>Summary</h2><table id="summary"><tr>'
        + "".join(
            f"<th>{h}</th>"
            for h in ("metric", "count", "errors", "mean", "95% CI", "std", "min", "median", "max")
        )
        + "</tr>",
    ]
    for name, m in summary_lines(aggregation):
        out.append(
            f"<tr><td>{html.escape(name)}</td>"
            + "".join(f'<td class="num">{html.escape(c)}</td>' for c in _cells(m))
            + "</tr>"
        )
    out.append("</table>")
    out.append(judge_usage.html_section(aggregation))
    for i, m in enumerate(aggregation["metrics"]):
        out.append(_metric_section(i, m, records))
    out.append(_errors_section(records))
    out.append("</body></html>")
    return "\n".join(out)


def _metric_section(i: int, metric: dict[str, Any], records: Sequence[dict[str, Any]]) -> str:
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
    parts.append(
        '<h3>Worst rows</h3><table class="worst"><tr><th>row</th><th>score</th>'
        "<th>prompt</th><th>response</th><th>reference</th><th>explanation</th></tr>"
    )
    for score, record in worst:
        row = record["input"]
        parts.append(
            f'<tr><td class="num">{record["row"]}</td><td class="num">{_fmt(score)}</td>'
            + "".join(
                f"<td>{_cell(row.get(k, ''))}</td>" for k in ("prompt", "response", "reference")
            )
            + f"<td>{_cell(record['results'][i]['explanation'] or '')}</td></tr>"
        )
    parts.append("</table></section>")
    return "\n".join(parts)


def _errors_section(records: Sequence[dict[str, Any]]) -> str:
    errors = [
        (record["row"], result)
        for record in records
        for result in record["results"]
        if result["error"] is not None
    ]
    parts = [f'<section id="errors"><h2>Errors ({len(errors)})</h2>']
    if errors:
        parts.append("<table><tr><th>row</th><th>metric</th><th>code</th><th>message</th></tr>")
        for row, result in errors[:MAX_ERRORS]:
            error = result["error"]
            parts.append(
                f'<tr class="err"><td class="num">{row}</td><td>{_cell(result["metric"])}</td>'
                f"<td>{_cell(error['code'])}</td><td>{_cell(error['message'])}</td></tr>"
            )
        parts.append("</table>")
        if len(errors) > MAX_ERRORS:
            parts.append(f"<p>… and {len(errors) - MAX_ERRORS} more (see results.jsonl)</p>")
    else:
        parts.append("<p>No errors.</p>")
    parts.append("</section>")
    return "\n".join(parts)
