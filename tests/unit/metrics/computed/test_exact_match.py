"""exact_match: 1.0 for the same string, 0.0 otherwise; no normalisation of any kind."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from evald.api import messages as m
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin

from tests.support import CALL

EXACT_MATCH = builtin().inputs["exact_match_input"]

# (prediction, reference, expected): string equality, by hand.
CASES = [
    pytest.param("Paris", "Paris", 1.0, id="same"),
    pytest.param("Paris", "paris", 0.0, id="case"),
    pytest.param("Paris ", "Paris", 0.0, id="trailing-space"),
    pytest.param(" Paris", "Paris", 0.0, id="leading-space"),
    pytest.param("Paris\n", "Paris", 0.0, id="newline"),
    pytest.param("Paris.", "Paris", 0.0, id="punctuation"),
    pytest.param("", "", 1.0, id="both-empty"),
    pytest.param("", "x", 0.0, id="empty-prediction"),
    pytest.param("x", "", 0.0, id="empty-reference"),
    pytest.param("日本", "日本", 1.0, id="cjk"),
    pytest.param("café", "cafe\u0301", 0.0, id="no-unicode-normalisation"),
    pytest.param("😀", "😀", 1.0, id="emoji"),
    pytest.param("a" * 10_000, "a" * 10_000, 1.0, id="long-same"),
    pytest.param("a" * 10_000, "a" * 9_999 + "b", 0.0, id="long-last-differs"),
]


def evaluate(pairs: list[tuple[str, str]]) -> list[float]:
    metric_input = m.ExactMatchInput(
        metric_spec=m.ExactMatchSpec(),
        instances=[m.ExactMatchInstance(prediction=p, reference=r) for p, r in pairs],
    )
    result: Any = asyncio.run(
        builtin()
        .inputs["exact_match_input"]
        .evaluate_input(metric_input, "exact_match_input", CALL)
    )
    values = result.exact_match_metric_values
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


@pytest.mark.parametrize(("prediction", "reference", "expected"), CASES)
def test_cases(prediction: str, reference: str, expected: float) -> None:
    assert evaluate([(prediction, reference)]) == [expected]


def test_batch_in_instance_order() -> None:
    pairs = [(str(p), str(r)) for p, r, _ in (c.values for c in CASES)]
    assert evaluate(pairs) == [c.values[2] for c in CASES]


def test_large_batch_in_order() -> None:
    # Scored in pieces (see base.ComputedMetric._score_adaptively), order kept.
    pairs = [(str(i), str(i if i % 3 else i + 1)) for i in range(100)]
    assert evaluate(pairs) == [0.0 if i % 3 == 0 else 1.0 for i in range(100)]


@pytest.mark.parametrize(
    ("instance", "field"),
    [
        (m.ExactMatchInstance(prediction="a"), "exact_match_input.instances[1].reference"),
        (m.ExactMatchInstance(reference="a"), "exact_match_input.instances[1].prediction"),
    ],
)
def test_missing_field_is_rejected_by_path(instance: Any, field: str) -> None:
    metric_input = m.ExactMatchInput(
        instances=[m.ExactMatchInstance(prediction="a", reference="a"), instance]
    )
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(
            builtin()
            .inputs["exact_match_input"]
            .evaluate_input(metric_input, "exact_match_input", CALL)
        )
    assert [v.field for v in raised.value.violations] == [field]


def test_no_instances_is_rejected() -> None:
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(
            builtin()
            .inputs["exact_match_input"]
            .evaluate_input(m.ExactMatchInput(), "exact_match_input", CALL)
        )
    assert raised.value.violations[0].field == "exact_match_input.instances"
