"""FMEval metrics against FMEval's own published unit-test cases and hand-worked ones."""

from __future__ import annotations

from typing import Any

import pytest
from evald.errors import InvalidArgument

from tests.unit.metrics.named.helpers import score

# (response, reference, exact_match, quasi_exact_match, f1_over_words): the first five are the
# cases of fmeval's test_qa_accuracy.py (evaluate_sample), the rest are worked by hand.
QA_CASES = [
    ("London", "London", 1.0, 1.0, 1.0),
    ("tarantino!", "Quentin Tarantino", 0.0, 0.0, 2 / 3),
    ("London", "Paris", 0.0, 0.0, 0.0),
    ("rome!", "Rome", 0.0, 1.0, 1.0),
    ("2022", "1978<OR>1986<OR>2022", 1.0, 1.0, 1.0),
    ("  Paris \n", "Paris", 1.0, 1.0, 1.0),  # exact match strips
    ("The Eiffel Tower", "eiffel tower", 0.0, 1.0, 1.0),  # articles and case dropped
    # {cat, sat, on, mat} vs {cat, sat}: precision 1/2, recall 1, F1 2/3
    ("the cat sat on a mat", "cat sat", 0.0, 0.0, 2 / 3),
    ("cat cat cat", "cat", 0.0, 0.0, 1.0),  # sets: repetition does not count
    ("", "", 1.0, 1.0, 1.0),
    ("", "x", 0.0, 0.0, 0.0),
]


@pytest.mark.parametrize(("response", "reference", "em", "qem", "f1"), QA_CASES)
def test_qa_scores(response: str, reference: str, em: float, qem: float, f1: float) -> None:
    assert score("fmeval/exact_match", response=response, reference=reference) == em
    assert score("fmeval/quasi_exact_match", response=response, reference=reference) == qem
    got = score("fmeval/f1_over_words", response=response, reference=reference)
    assert got == pytest.approx(f1)


def test_precision_and_recall_over_words() -> None:
    # {"quentin","tarantino"} vs {"tarantino"}: precision 1/2, recall 1.
    texts = {"response": "Quentin Tarantino", "reference": "tarantino"}
    assert score("fmeval/precision_over_words", None, **texts) == 0.5
    assert score("fmeval/recall_over_words", None, **texts) == 1.0


def test_custom_delimiter() -> None:
    params = {"target_output_delimiter": "|"}
    assert score("fmeval/exact_match", params, response="b", reference="a|b") == 1.0
    assert score("fmeval/exact_match", response="b", reference="a|b") == 0.0


FACTUAL = [
    ("Paris is the capital", "paris<OR>lyon", {}, 1.0),
    ("It is Berlin.", "Paris<OR>Lyon", {}, 0.0),
    ("PARIS and LYON", "paris<OR>lyon", {"logical_operator": "AND"}, 1.0),
    ("PARIS only", "paris<OR>lyon", {"logical_operator": "AND"}, 0.0),
    ("the U.S.A.", "usa", {}, 0.0),  # exact inclusion keeps punctuation
    ("the U.S.A.", "usa", {"score": "quasi_exact_inclusion"}, 1.0),
]


@pytest.mark.parametrize(("response", "reference", "params", "expected"), FACTUAL)
def test_factual_knowledge(
    response: str, reference: str, params: dict[str, Any], expected: float
) -> None:
    got = score("fmeval/factual_knowledge", params, response=response, reference=reference)
    assert got == expected


CLASSIFICATION = [
    ("Positive", "positive", None, 1.0),
    ("positive review", "positive", None, 0.0),  # no labels: the whole response is the label
    ("I think negative overall", "negative", ["positive", "negative"], 1.0),
    ("neutral", "negative", ["positive", "negative"], 0.0),  # unknown
    ("positive negative", "negative", ["positive", "negative"], 0.0),  # first label wins
]


@pytest.mark.parametrize(("response", "reference", "labels", "expected"), CLASSIFICATION)
def test_classification_accuracy(
    response: str, reference: str, labels: list[str] | None, expected: float
) -> None:
    params = {} if labels is None else {"valid_labels": labels}
    got = score("fmeval/classification_accuracy", params, response=response, reference=reference)
    assert got == expected


def test_missing_reference_names_the_field() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("fmeval/exact_match", response="x")
    assert caught.value.violations[0].field == "instance.reference"


def test_unknown_parameter_names_it() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("fmeval/exact_match", {"delimiter": "|"}, response="x", reference="x")
    assert caught.value.violations[0].field.endswith("metric_spec_parameters.delimiter")
