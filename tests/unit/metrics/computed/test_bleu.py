"""bleu: hand-worked sentence BLEU values, and identity with ``sacrebleu.sentence_bleu``."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from evald.api import messages as m
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.computed.bleu import Bleu

from tests.support import CALL

BLEU_METRIC = builtin().inputs["bleu_input"]

GOLDEN = Path(__file__).resolve().parents[3] / "golden" / "bleu"

# (prediction, reference, use_effective_order, expected score), worked by hand from the BLEU
# definition (geometric mean of modified 1..4-gram precisions times the brevity penalty) with
# sacrebleu's 13a tokenization and its "exp" smoothing (the k-th order with no match counts as
# 1 / (2^k * total)).
HAND = [
    pytest.param("the cat sat on the mat", "the cat sat on the mat", False, 1.0, id="identical"),
    pytest.param("the cat sat on the mat", "the cat sat on the mat", True, 1.0, id="identical-eff"),
    pytest.param("a b c d", "e f g h", False, 0.0, id="disjoint"),
    pytest.param("a b c d", "e f g h", True, 0.0, id="disjoint-eff"),
    # p = 5/6, 3/5, 2/4, 1/3; BP = 1 -> (1/12) ** (1/4)
    pytest.param(
        "the cat sat on the mat", "the cat sat on a mat", False, (1 / 12) ** 0.25, id="partial"
    ),
    # case counts: p = 5/6, 4/5, 3/4, 2/3 -> (1/3) ** (1/4)
    pytest.param(
        "The cat sat on the mat", "the cat sat on the mat", False, (1 / 3) ** 0.25, id="case"
    ),
    # p1 = 3/4, p2 = 1/3, no 3-gram match (1/(2*2)), no 4-gram match (1/(4*1)) -> (1/64) ** (1/4)
    pytest.param("a b c d", "a b x d", False, (1 / 64) ** 0.25, id="exp-smoothing"),
    pytest.param("a b c d", "a b x d", True, (1 / 64) ** 0.25, id="exp-smoothing-eff"),
    # two tokens: no 3- or 4-grams at all, so plain BLEU is 0 and effective order uses n <= 2
    pytest.param("hello world", "hello world", False, 0.0, id="short"),
    pytest.param("hello world", "hello world", True, 1.0, id="short-eff"),
    # brevity penalty exp(1 - 6/2) with precisions 2/2, 1/1 under effective order
    pytest.param("the cat", "the cat sat on the mat", True, math.exp(-2), id="brevity"),
    pytest.param("the cat", "the cat sat on the mat", False, 0.0, id="brevity-plain"),
    # 13a splits punctuation off words: both sides are "Hello , world !"
    pytest.param("Hello, world!", "Hello , world !", False, 1.0, id="13a-punctuation"),
    pytest.param("", "the cat", False, 0.0, id="empty-prediction"),
    pytest.param("the cat", "", True, 0.0, id="empty-reference"),
    pytest.param("", "", False, 0.0, id="both-empty"),
]

# Compared with sacrebleu called directly (no hand-worked value).
REFERENCE = [
    ("The quick brown fox jumps over the lazy dog.", "A quick brown dog jumps over the lazy fox."),
    (
        "It is a guide to action which ensures that the military always obeys the commands of the "
        "party.",
        "It is a guide to action that ensures that the military will forever heed Party commands.",
    ),
    ("Le chat est sur le tapis.", "Il y a un chat sur le tapis."),
    ("東京は日本の首都です。", "日本の首都は東京です。"),
    ("naïve café — déjà vu", "naive cafe - deja vu"),
    ("?!?!...", "..."),
    ("the the the the the the the", "the cat is on the mat"),
    ("line one\nline two", "line one line two"),
    ("&quot;quoted&quot; &amp; done", '"quoted" & done'),
    ("   padded   ", "padded"),
]


def evaluate(pairs: list[tuple[str, str]], use_effective_order: bool = False) -> list[float]:
    """Scores from the registered handler (through the result message: 32-bit floats)."""
    metric_input = m.BleuInput(
        metric_spec=m.BleuSpec(use_effective_order=use_effective_order),
        instances=[m.BleuInstance(prediction=p, reference=r) for p, r in pairs],
    )
    result: Any = asyncio.run(BLEU_METRIC.evaluate_input(metric_input, "bleu_input", CALL))
    values = result.bleu_metric_values
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


def score(prediction: str, reference: str, effective_order: bool) -> float:
    """The handler's score as a Python float (no 32-bit rounding)."""
    return Bleu().score_text(prediction, reference, effective_order)


def reference_bleu(prediction: str, reference: str, effective_order: bool) -> float:
    result = sacrebleu.sentence_bleu(prediction, [reference], use_effective_order=effective_order)
    return float(result.score) / 100


@pytest.mark.parametrize(("prediction", "reference", "effective", "expected"), HAND)
def test_hand_worked(prediction: str, reference: str, effective: bool, expected: float) -> None:
    assert score(prediction, reference, effective) == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.parametrize(("prediction", "reference", "effective", "expected"), HAND)
def test_hand_worked_values_agree_with_sacrebleu(
    prediction: str, reference: str, effective: bool, expected: float
) -> None:
    # Guards the hand arithmetic above: a wrong hand value fails here, not only in our code.
    assert reference_bleu(prediction, reference, effective) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("effective", [False, True])
@pytest.mark.parametrize(("prediction", "reference"), REFERENCE)
def test_identical_to_sacrebleu(prediction: str, reference: str, effective: bool) -> None:
    assert score(prediction, reference, effective) == reference_bleu(
        prediction, reference, effective
    )


def test_effective_order_changes_short_sentences() -> None:
    assert evaluate([("hello world", "hello world")], use_effective_order=True) == [1.0]
    assert evaluate([("hello world", "hello world")], use_effective_order=False) == [0.0]


def test_unset_spec_means_no_effective_order() -> None:
    metric_input = m.BleuInput(instances=[m.BleuInstance(prediction="a b", reference="a b")])
    result: Any = asyncio.run(BLEU_METRIC.evaluate_input(metric_input, "bleu_input", CALL))
    assert [v.score for v in result.bleu_metric_values] == [0.0]


def test_scores_in_instance_order_with_zero_set() -> None:
    pairs = [
        ("the cat sat on the mat", "the cat sat on the mat"),
        ("a b c d", "e f g h"),
        ("the cat sat on the mat", "the cat sat on a mat"),
    ]
    expected = [1.0, 0.0, (1 / 12) ** 0.25]
    assert evaluate(pairs) == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_large_batch_scored_off_loop_in_order() -> None:
    # Enough instances to go past base.INLINE_SECONDS: scored in pieces, order kept.
    pairs = [(" ".join(["w"] * (i % 7)), "w w w w") for i in range(100)]
    expected = [reference_bleu(p, r, True) for p, r in pairs]
    assert evaluate(pairs, use_effective_order=True) == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_missing_reference_is_rejected() -> None:
    metric_input = m.BleuInput(instances=[m.BleuInstance(prediction="a")])
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(BLEU_METRIC.evaluate_input(metric_input, "bleu_input", CALL))
    assert raised.value.violations[0].field == "bleu_input.instances[0].reference"


def test_no_warning_logged_per_instance(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        score("a b c", "a b c", False)
    assert not [r for r in caplog.records if r.name.startswith("sacrebleu")]


def test_concurrent_threads_agree_with_sequential() -> None:
    handler = Bleu()
    jobs = [(p, r, e) for p, r in REFERENCE for e in (False, True)] * 20
    expected = [reference_bleu(*job) for job in jobs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda job: handler.score_text(*job), jobs))
    assert got == expected


def with_response(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.glob("*.json")) if "response" in json.loads(p.read_text())]


@pytest.mark.parametrize("path", with_response(GOLDEN), ids=lambda p: p.name)
def test_golden_expectations_match_sacrebleu(path: Path) -> None:
    # The golden files' expected scores must come from the reference library, not from us.
    case = json.loads(path.read_text(encoding="utf-8"))
    bleu_input = case["request"]["bleuInput"]
    effective = bool(bleu_input.get("metricSpec", {}).get("useEffectiveOrder", False))
    values = case["response"]["bleuResults"]["bleuMetricValues"]
    assert len(values) == len(bleu_input["instances"])
    for instance, value in zip(bleu_input["instances"], values, strict=True):
        expected = reference_bleu(instance["prediction"], instance["reference"], effective)
        assert value["score"] == pytest.approx(expected, rel=1e-6, abs=1e-7)
