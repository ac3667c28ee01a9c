"""The runs pages in a browser: list, a finished run, filtering to errors, a row, comparing
two runs, importing a directory, and text from data rendered as text (no script runs)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import UiServer, record, screenshot

INJECTED = "<script>alert(1)</script><img src=x onerror=alert(1)>"
QUESTIONS = [
    ("What is the capital of France?", "Paris", "Paris", "geography"),
    ("2 + 2?", "4", "4", "math"),
    ("Largest planet?", "Saturn", "Jupiter", "science"),
    ("Who wrote Hamlet?", INJECTED, "Shakespeare", "literature"),
    ("Boiling point of water in C?", "100", "100", "science"),
    ("Square root of 81?", "9", "9", "math"),
    ("Capital of Japan?", "Kyoto", "Tokyo", "geography"),
    ("Speed of light, km/s?", "300000", "299792", "science"),
]


def records(shift: float) -> list[dict[str, Any]]:
    found = []
    for i, (prompt, response, reference, category) in enumerate(QUESTIONS):
        exact = 1.0 if response == reference else 0.0
        quality = round(min(1.0, 0.35 + 0.08 * i + shift), 3)
        scores: dict[str, float | None] = {"exact_match": exact, "judge_quality": quality}
        if i == 2 and shift == 0.0:
            scores["judge_quality"] = None  # the judge failed on this row
        found.append(
            record(i, prompt, response, reference, scores, category=category, error="judge timeout")
        )
    return found


@pytest.fixture(scope="module")
def runs(ui_server: UiServer) -> dict[str, str]:
    return {
        "base": ui_server.import_run("baseline model", records(0.0)),
        "new": ui_server.import_run("candidate model", records(0.2)),
    }


def test_runs_list_and_run_page(signed_in: Any, runs: dict[str, str]) -> None:
    page = signed_in
    page.goto("/ui/runs")
    table = page.get_by_test_id("runs-table")
    table.get_by_text("candidate model").wait_for()
    screenshot(page, "runs")
    table.get_by_role("link", name="baseline model").click()
    page.wait_for_url(re.compile(f"/ui/runs/{runs['base']}$"))
    summary = page.get_by_test_id("summary-table")
    summary.wait_for()
    assert summary.locator("tbody tr").count() == 2
    assert page.locator("svg.chart rect.bar").count() > 0
    page.get_by_test_id("category-table").wait_for()
    page.get_by_test_id("rows-table").wait_for()
    screenshot(page, "run")
    # Filter to the rows with errors.
    page.select_option("#rows-errors", "true")
    page.get_by_text("1 rows match").wait_for()
    assert page.get_by_test_id("rows-table").locator("tbody tr").count() == 1
    assert "has_error=true" in page.url
    # Then open that row.
    page.get_by_role("link", name="Row 2").click()
    page.wait_for_url(re.compile(r"/rows/2$"))
    page.get_by_test_id("metric-judge_quality").get_by_text("judge timeout").wait_for()
    assert page.get_by_test_id("row-response").inner_text() == "Saturn"
    screenshot(page, "row")


def test_search_and_sort(signed_in: Any, runs: dict[str, str]) -> None:
    page = signed_in
    page.goto(f"/ui/runs/{runs['base']}?metric=judge_quality&sort=-metric")
    rows = page.get_by_test_id("rows-table").locator("tbody tr")
    rows.first.wait_for()
    first = rows.first.get_attribute("data-testid")
    assert first == "row-7"  # the highest judge_quality
    page.fill("#rows-q", "capital")
    page.keyboard.press("Enter")
    page.get_by_text("2 rows match").wait_for()


def test_compare(signed_in: Any, runs: dict[str, str]) -> None:
    page = signed_in
    page.goto("/ui/compare")
    page.select_option("#a", runs["base"])
    page.select_option("#b", runs["new"])
    page.get_by_role("button", name="Compare").click()
    table = page.get_by_test_id("compare-table")
    table.wait_for()
    quality = table.locator('tr[data-metric="judge_quality"]')
    assert "+0.2" in quality.inner_text()
    assert page.locator('[data-testid^="changed-"]').count() > 0
    screenshot(page, "compare")


def test_import_a_directory(signed_in: Any, tmp_path: Path) -> None:
    page = signed_in
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records(0.1)))
    (folder / "aggregation.json").write_text(json.dumps({"rows": len(QUESTIONS)}))
    page.goto("/ui/import")
    page.set_input_files("#import-files", [folder / "results.jsonl", folder / "aggregation.json"])
    page.fill("#import-name", "uploaded run")
    page.get_by_role("button", name="Import").click()
    page.get_by_role("status").get_by_text("uploaded run").wait_for()
    screenshot(page, "import")
    page.get_by_role("status").get_by_role("link").click()
    page.get_by_test_id("summary-table").wait_for()


def test_data_is_text_never_markup(
    signed_in: Any, runs: dict[str, str], ui_server: UiServer
) -> None:
    page = signed_in
    hostile = ui_server.import_run(
        INJECTED, [record(0, INJECTED, INJECTED, INJECTED, {"<b>m</b>": 1.0}, category=INJECTED)]
    )
    for path in (f"/ui/runs/{runs['base']}/rows/3", f"/ui/runs/{hostile}", "/ui/runs"):
        page.goto(path)
        page.get_by_text(INJECTED).first.wait_for()
        assert page.locator("main script").count() == 0
        assert page.locator("main img").count() == 0
        assert page.locator("main b").count() == 0
        assert page.evaluate("window.__injected === undefined")
    # No dialog opened: the page fixture fails the test if one did.
