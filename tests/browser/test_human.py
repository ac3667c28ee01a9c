"""Human evaluation in the browser: an admin creates one task per rating mechanism through the
form, two annotator keys rate every row with the keyboard (one stops and resumes), and the
report page shows the numbers computed here from the stored ratings read through the API; an
annotator cannot open a task not assigned to it."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any, cast

import krippendorff
import numpy as np
import pytest
from scipy.stats import spearmanr  # type: ignore[import-untyped]

from tests.browser.support import KEY, UiServer, record, screenshot
from tests.http_support import http_url
from tests.support import serving

ANNOTATORS = {"ann1": "evald-ui-annotator-one-77b1", "ann2": "evald-ui-annotator-two-90c3"}
OUTSIDER = "evald-ui-annotator-three-1d5e"
ROWS = [
    {"prompt": f"Question {i}?", "response": f"Answer A{i}.", "baseline_response": f"Answer B{i}."}
    for i in range(3)
]
H = "/v1/evald/human"
TASKS = [
    # (mechanism, models, keys pressed per rater per row: rows 0..2)
    ("likert_comparison", ["alpha", "beta"], {"ann1": ["1", "4", "5"], "ann2": ["2", "4", "3"]}),
    ("choice_buttons", ["alpha", "beta"], {"ann1": ["a", "b", "t"], "ann2": ["a", "a", "b"]}),
    ("ordinal_rank", ["alpha", "beta"], {"ann1": ["1", "2", "1"], "ann2": ["1", "1", "2"]}),
    # Two models rated in turn: two keys per row.
    ("thumbs_up_down", ["alpha", "beta"],
     {"ann1": ["jk", "jj", "kk"], "ann2": ["jj", "kj", "kk"]}),
    ("likert_individual", ["alpha"], {"ann1": ["5", "2", "4"], "ann2": ["4", "1", "4"]}),
]  # fmt: skip


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """The shell's server, with annotator keys beside its admin key."""
    root = tmp_path_factory.mktemp("human-ui")
    keys = root / "keys.toml"
    entries = [("ui", KEY, "admin"), *((n, k, "annotator") for n, k in ANNOTATORS.items())]
    entries.append(("ann3", OUTSIDER, "annotator"))
    keys.write_text(
        "".join(f'[[keys]]\nname = "{n}"\nkey = "{k}"\nrole = "{r}"\n' for n, k, r in entries)
    )
    with serving(http_port=0, auth_keys_file=keys, data_dir=root / "data") as running:
        yield UiServer(http_url(running), root)


def tab(browser: Any, server: UiServer, key: str) -> Any:
    """A tab signed in with ``key`` that records page errors in ``tab.problems``."""
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('evald.apiKey', {key!r})")
    page = context.new_page()
    page.set_default_timeout(5000)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" and not re.search(r"\b(400|401|403|404)\b", m.text)
            else None
        ),
    )
    page.problems = problems
    return page


def create_task(page: Any, mechanism: str, models: list[str], shot: bool) -> str:
    page.goto("/ui/human/new")
    page.fill("#task-name", f"{mechanism} task")
    page.select_option("#task-mechanism", mechanism)
    page.fill("#task-model-a", models[0])
    if len(models) > 1:
        page.fill("#task-model-b", models[1])
    page.fill("#task-instructions", f"Rate with {mechanism}. Be fair.")
    page.fill("#task-raters", "ann1, ann2")
    page.fill("#task-per-row", "2")
    if mechanism == "choice_buttons":
        page.check("#task-tie")
    page.fill("#task-jsonl", "".join(json.dumps(r) + "\n" for r in ROWS))
    if shot:
        screenshot(page, "human-task-create")
    page.get_by_test_id("create-task").click()
    page.wait_for_url(re.compile(r"/ui/human/tasks/[0-9a-f]+$"))
    return str(page.url.rsplit("/", 1)[1])


def rate_rows(page: Any, task: str, keys: list[str], start: int = 0) -> int:
    """Press each row's keys on the rating page (already open); the saves counted so far."""
    saves = start
    for row_keys in keys:
        for key in row_keys:
            page.keyboard.press(key)
            saves += 1
            page.locator(f'[data-testid="save-status"][data-saves="{saves - start}"]').wait_for()
    return saves


def fmt(value: float | None, digits: int = 3) -> str:
    """The page's number format (dom.js fmt)."""
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else f"{value:.{digits}f}"


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%"


def expected_figures(
    mechanism: str, models: list[str], ratings: list[dict[str, Any]]
) -> dict[str, str]:
    """test id -> text the report page must show, from the stored ratings."""
    found: dict[str, str] = {"count-ratings": str(len(ratings))}
    values = [r["value"] for r in ratings]
    if mechanism == "likert_individual":
        for m in models:
            counts = Counter(r["value"] for r in ratings if r["item"] == m)
            found |= {f"likert-{m}-{v}": str(counts[v]) for v in range(1, 6)}
    elif mechanism == "likert_comparison":
        counts = Counter(values)
        found |= {f"strength-{v}": str(counts[v]) for v in range(1, 6)}
        found["preferred-pct-alpha"] = pct(sum(v < 3 for v in values), len(values))
        found["preferred-pct-beta"] = pct(sum(v > 3 for v in values), len(values))
        found["preferred-pct-no_preference"] = pct(sum(v == 3 for v in values), len(values))
    elif mechanism == "choice_buttons":
        counts = Counter(values)
        for k in [*models, "tie"]:
            found[f"preferred-count-{k}"] = str(counts[k])
            found[f"preferred-pct-{k}"] = pct(counts[k], len(values))
    elif mechanism == "ordinal_rank":
        for m in models:
            counts = Counter(v[m] for v in values)
            found |= {f"rank-{m}-{k}": str(counts[k]) for k in (1, 2)}
    else:
        for m in models:
            given = [r["value"] for r in ratings if r["item"] == m]
            found[f"thumbs-{m}-up"] = str(given.count("up"))
            found[f"thumbs-{m}-down"] = str(given.count("down"))
            found[f"thumbs-{m}-pct"] = pct(given.count("up"), len(given))
    found["agreement-krippendorff_alpha"] = fmt(alpha(mechanism, models, ratings))
    return found


def alpha(mechanism: str, models: list[str], ratings: list[dict[str, Any]]) -> float | None:
    """Krippendorff's alpha by the krippendorff package (an independent implementation)."""
    units: dict[tuple[int, str], dict[str, Any]] = {}
    for r in ratings:
        if mechanism == "ordinal_rank":
            for m in models:
                units.setdefault((r["row"], m), {})[r["rater"]] = r["value"][m]
        else:
            units.setdefault((r["row"], r["item"]), {})[r["rater"]] = r["value"]
    labels = sorted({str(v) for u in units.values() for v in u.values()})
    numeric = mechanism in ("likert_individual", "likert_comparison", "ordinal_rank")
    data = np.array(
        [[(float(u[r]) if numeric else labels.index(str(u[r]))) if r in u else np.nan
          for u in units.values()] for r in ANNOTATORS]
    )  # fmt: skip
    if len({x for x in data.flatten() if not np.isnan(x)}) < 2:
        return None
    level = "ordinal" if numeric else "nominal"
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=cast(Any, level)))


def test_five_mechanisms_rated_by_two_annotators(browser: Any, ui_server: UiServer) -> None:
    admin = tab(browser, ui_server, KEY)
    ids = [create_task(admin, m, models, shot=i == 0) for i, (m, models, _) in enumerate(TASKS)]
    for name, key in ANNOTATORS.items():
        page = tab(browser, ui_server, key)
        for task, (mechanism, _, by_rater) in zip(ids, TASKS, strict=True):
            keys = by_rater[name]
            page.goto(f"/ui/human/tasks/{task}/rate")
            page.get_by_test_id("instructions").get_by_text(f"Rate with {mechanism}").wait_for()
            if name == "ann1" and mechanism == "choice_buttons":
                # Stop after one row, come back through the task list: resumes at row 1.
                rate_rows(page, task, keys[:1])
                page.goto("/ui/human")
                page.get_by_test_id(f"rate-{task}").click()
                progress = page.get_by_test_id("progress")
                progress.get_by_text("1 / 3 rows rated · row 2 of 3").wait_for()
                assert page.get_by_test_id("row").locator("h2").text_content() == (
                    "Dataset row 2 of 3"
                )
                screenshot(page, "human-rate")
                # Back to the rated row: its choice is shown pressed; then forward again.
                heading = page.get_by_test_id("row").locator("h2")
                page.keyboard.press("p")
                heading.get_by_text("Dataset row 1 of 3").wait_for()
                assert page.get_by_test_id("choice-alpha").get_attribute("aria-pressed") == "true"
                assert page.get_by_test_id("choice-beta").get_attribute("aria-pressed") == "false"
                page.keyboard.press("n")
                heading.get_by_text("Dataset row 2 of 3").wait_for()
                rate_rows(page, task, keys[1:])
            else:
                rate_rows(page, task, keys)
            page.get_by_test_id("progress").get_by_text("3 / 3 rows rated").wait_for()
        assert not page.problems, page.problems
        page.context.close()
    for task, (mechanism, models, _) in zip(ids, TASKS, strict=True):
        status, listed = ui_server.api("GET", f"{H}/tasks/{task}/ratings?page_size=1000")
        assert status == 200
        ratings = listed["ratings"]
        assert len(ratings) == 2 * 3 * (1 if mechanism != "thumbs_up_down" else 2)
        admin.goto(f"/ui/human/tasks/{task}")
        admin.get_by_test_id("agreement").wait_for()
        for testid, text in expected_figures(mechanism, models, ratings).items():
            shown = admin.get_by_test_id(testid).text_content()
            assert shown == text, (mechanism, testid)
        if mechanism == "likert_comparison":
            screenshot(admin, "human-report")
        if mechanism == "likert_individual":
            compare_with_judge(admin, ui_server, ratings)
        if mechanism == "thumbs_up_down":
            with admin.expect_download() as download:
                admin.get_by_test_id("export").click()
            lines = download.value.path().read_text().splitlines()
            assert [json.loads(line) for line in lines] == ratings
    assert not admin.problems, admin.problems
    admin.context.close()


def compare_with_judge(page: Any, server: UiServer, ratings: list[dict[str, Any]]) -> None:
    """Choose an imported run's metric on the report page: Spearman's correlation shown is
    scipy's, of each row's mean Likert rating against the run's scores."""
    scores = [0.2, 0.1, 0.7]
    run = server.import_run(
        "judged", [record(i, r["prompt"], r["response"], "", {"judge": scores[i]})
                   for i, r in enumerate(ROWS)]
    )  # fmt: skip
    page.reload()
    page.select_option("#judge-run", run)
    page.select_option("#judge-metric", "judge")
    page.get_by_test_id("judge-form").get_by_role("button").click()
    means = [float(np.mean([r["value"] for r in ratings if r["row"] == i])) for i in range(3)]
    expected = fmt(float(spearmanr(means, scores).statistic))
    assert page.get_by_test_id("spearman-alpha").text_content() == expected


def test_annotator_cannot_open_another_task(browser: Any, ui_server: UiServer) -> None:
    status, created = ui_server.api(
        "POST",
        f"{H}/tasks",
        {"mechanism": "thumbs_up_down", "models": ["m"], "raters": ["ann1"],
         "dataset": {"rows": [{"prompt": "p", "response": "r"}]}},
    )  # fmt: skip
    assert status == 201, created
    page = tab(browser, ui_server, OUTSIDER)
    page.goto(f"/ui/human/tasks/{created['id']}/rate")
    page.get_by_role("alert").get_by_text("does not exist").wait_for()
    page.goto("/ui/human")
    page.get_by_test_id("no-tasks").wait_for()
    assert page.get_by_test_id("all-tasks").count() == 0  # an annotator sees no admin list
    assert not page.problems, page.problems
    page.context.close()


def test_without_keys_a_rater_names_themselves(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("human-open")
    with serving(http_port=0, data_dir=root / "data") as running:
        server = UiServer(http_url(running), root)
        spec = {"mechanism": "choice_buttons", "models": ["x", "y"], "raters": ["zoe"],
                "dataset": {"rows": ROWS[:2]}}  # fmt: skip
        status, created = server.api("POST", f"{H}/tasks", spec)
        assert status == 201, created
        page = tab(browser, server, "")
        page.goto("/ui/human")
        page.fill("#rater-name", "zoe")
        page.get_by_test_id("rater-form").get_by_role("button").click()
        page.get_by_test_id(f"rate-{created['id']}").click()
        page.get_by_test_id("progress").get_by_text("0 / 2 rows rated").wait_for()
        rate_rows(page, created["id"], ["a", "b"])
        page.get_by_test_id("progress").get_by_text("2 / 2 rows rated").wait_for()
        status, listed = server.api("GET", f"{H}/tasks/{created['id']}/ratings")
        assert [(r["rater"], r["value"]) for r in listed["ratings"]] == [("zoe", "x"), ("zoe", "y")]
        assert not page.problems, page.problems
        page.context.close()
