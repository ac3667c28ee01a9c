"""Checking a model evaluation request, and aggregating its row records."""

from __future__ import annotations

from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.fmeval import run

TARGET = {"api_endpoint": {"url": "http://m:8000/v1", "model_id": "m"}}


@pytest.mark.parametrize(
    ("template", "ok"),
    [
        ("$model_input", True),
        ("Q: ${model_input}?", True),
        ("Costs $$5: $model_input", True),
        ("no placeholder", False),
        ("$question $model_input", False),
        ("$model_input costs $", False),
    ],
)
def test_prompt_templates(template: str, ok: bool) -> None:
    if ok:
        assert run.plan("semantic_robustness.qa", {}, TARGET, {}, template).prompt_template
        return
    with pytest.raises(InvalidArgument) as caught:
        run.plan("semantic_robustness.qa", {}, TARGET, {}, template)
    assert caught.value.violations[0].field == "prompt_template"


def record(row: int, wer: float | None, category: str, error: bool = False) -> dict[str, Any]:
    return {
        "row": row,
        "input": {"model_input": "x", "category": category},
        "scores": {} if error else {"word_error_rate": wer, "bertscore_dissimilarity": None},
        "details": {},
        "error": {"code": "UNAVAILABLE", "message": "down"} if error else None,
    }


def test_a_row_without_a_score_is_left_out_of_the_mean() -> None:
    plan = run.plan("general_semantic_robustness", {}, TARGET)
    records = [record(0, 0.5, "a"), record(1, None, "a"), record(2, 0.25, "b"),
               record(3, None, "b", error=True)]  # fmt: skip
    found = {s["name"]: s for s in run.aggregation(plan, records)["scores"]}
    wer = found["word_error_rate"]
    assert (wer["value"], wer["count"]) == (0.375, 2)
    assert wer["categories"] == {"a": 0.5, "b": 0.25}
    unavailable = found["bertscore_dissimilarity"]
    assert (unavailable["value"], unavailable["count"]) == (None, 0)
