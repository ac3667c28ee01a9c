"""Creating tasks: every bad request refused with the field at fault; datasets inline, as JSONL
text and as a server-local file (confined to the dataset root)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from evald.errors import EvalError, InvalidArgument, PermissionDenied
from evald.human.service import HumanService
from evald.human.store import HumanStore

ROWS = [{"prompt": "p", "response": "r", "baseline_response": "b"}]
GOOD = {
    "mechanism": "choice_buttons",
    "models": ["a", "b"],
    "raters": ["ann", "bob"],
    "raters_per_row": 2,
    "dataset": {"rows": ROWS},
}

BAD = [
    # (changes to GOOD, field at fault)
    ({"mechanism": "thumbs"}, "mechanism"),
    ({"models": ["a"]}, "models"),
    ({"models": []}, "models"),
    ({"models": ["a", "a"]}, "models"),
    ({"models": [{"name": "a", "colour": "x"}, "b"]}, "models[0]"),
    ({"raters": []}, "raters"),
    ({"raters": ["ann", "has space"]}, "raters[1]"),
    ({"raters_per_row": 3}, "raters_per_row"),
    ({"raters_per_row": 0}, "raters_per_row"),
    ({"instructions": 5}, "instructions"),
    ({"dataset": {"rows": []}}, "dataset"),
    ({"dataset": {"rows": [{"prompt": "p", "response": "r"}]}}, "dataset"),  # no baseline
    ({"dataset": {"rows": [{"response": "r", "baseline_response": "b"}]}}, "dataset"),
    ({"dataset": {"rows": ROWS, "path": "x"}}, "dataset"),
    ({"dataset": {"jsonl": "{not json"}}, "dataset.jsonl"),
    ({"dataset": {"url": "x"}}, "dataset"),
    ({"surprise": 1}, "surprise"),
    ({"allow_tie": "yes"}, "allow_tie"),
]


def _service(tmp_path: Path) -> HumanService:
    return HumanService(HumanStore(tmp_path / "h.sqlite3"), None, tmp_path / "datasets")


@pytest.mark.parametrize(("change", "field"), BAD)
def test_bad_tasks_name_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        asyncio.run(_service(tmp_path).create_task({**GOOD, **change}, "boss"))
    assert caught.value.violations[0].field == field


@pytest.mark.parametrize(
    ("dataset", "error"),
    [
        ({"rows": ROWS}, None),
        ({"jsonl": json.dumps(ROWS[0]) + "\n"}, None),
        ({"path": "rows.jsonl"}, None),
        ({"path": "../outside.jsonl"}, PermissionDenied),
        ({"run": "abc"}, EvalError),  # this service keeps no jobs
    ],
)
def test_dataset_sources(tmp_path: Path, dataset: dict[str, Any], error: type | None) -> None:
    root = tmp_path / "datasets"
    root.mkdir()
    (root / "rows.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    (tmp_path / "outside.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    service = _service(tmp_path)
    if error is not None:
        with pytest.raises(error):
            asyncio.run(service.create_task({**GOOD, "dataset": dataset}, "boss"))
        return
    created = asyncio.run(service.create_task({**GOOD, "dataset": dataset}, "boss"))
    task = asyncio.run(service.task(created["id"]))
    row = asyncio.run(service.row(task, 0, "ann"))
    assert row["responses"] == {"a": "r", "b": "b"}
    assert (created["rows"], created["creator"]) == (1, "boss")
