"""The named-metrics table of docs/metrics/named.md states every NeMo and FMEval metric's
definition, range and parameters exactly as the metric declares them (the listing RPC's text)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from evald.metrics.base import Metric
from evald.metrics.catalog import builtin

PAGE = Path(__file__).resolve().parents[2] / "docs" / "metrics" / "named.md"
ROW = re.compile(r"^\| `((?:nemo|fmeval)/[^`]+)` \|.*$", re.M)
SECTION = "## Predefined metrics"


def table_text() -> str:
    """The section of the page that holds the definitions table (up to its next heading)."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION) + len(SECTION)
    end = text.find("\n#", start)
    return text[start : end if end != -1 else len(text)]


def table_row(metric: Metric) -> str:
    """The row a metric has in the table: name, range, definition, parameters."""
    parameters = ", ".join(
        f"`{p.name}`" if p.default is None else f"`{p.name}` (default `{json.dumps(p.default)}`)"
        for p in metric.parameters
    )
    # A `|` in a definition would end its cell: Markdown tables spell it `\|`.
    cells = [f"`{metric.name}`", metric.score_range, metric.definition, parameters]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


FAMILIES = sorted(name for name, m in builtin().named.items() if m.family in ("nemo", "fmeval"))


@pytest.mark.parametrize("name", FAMILIES)
def test_every_metric_is_documented_as_declared(name: str) -> None:
    rows = {m.group(1): m.group(0) for m in ROW.finditer(table_text())}
    assert name in rows, f"{name} has no row in {PAGE.name}"
    assert rows[name] == table_row(builtin().named[name])


def test_the_table_names_no_other_metric() -> None:
    documented = ROW.findall(table_text())
    assert len(documented) == len(set(documented))
    assert set(documented) == set(FAMILIES)
