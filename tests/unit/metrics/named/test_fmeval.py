"""FMEval metrics against FMEval's own published unit-test cases and hand-worked edges.

Sources: rows marked "fmeval" are cases of fmeval's test/unit/eval_algorithms/test_qa_accuracy.py,
test_factual_knowledge.py and test_classification_accuracy.py (inputs and expected values copied
as data). The others are worked by hand from FMEval's code: normalisation splits on the space
character only, word sets split on any whitespace, and NLTK's None (a side without words) is 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evald.errors import InvalidArgument

from tests.unit.metrics.named.helpers import score

NBSP = "\u00a0"

# (response, reference, exact_match, quasi_exact_match, f1, precision, recall)
QA_CASES = [
    ("London", "London", 1.0, 1.0, 1.0, 1.0, 1.0),  # fmeval
    ("tarantino!", "Quentin Tarantino", 0.0, 0.0, 2 / 3, 1.0, 0.5),  # fmeval
    ("London", "Paris", 0.0, 0.0, 0.0, 0.0, 0.0),  # fmeval
    ("rome!", "Rome", 0.0, 1.0, 1.0, 1.0, 1.0),  # fmeval
    ("2022", "1978<OR>1986<OR>2022", 1.0, 1.0, 1.0, 1.0, 1.0),  # fmeval
    ("Yes. That is true.", "yes", 0.0, 0.0, 0.4, 0.25, 1.0),  # fmeval
    ("I live in New York!", "i     live in new york.", 0.0, 1.0, 1.0, 1.0, 1.0),  # fmeval
    ("  Paris \n", "Paris", 1.0, 1.0, 1.0, 1.0, 1.0),  # both sides stripped first
    ("The Eiffel Tower", "eiffel tower", 0.0, 1.0, 1.0, 1.0, 1.0),
    ("the cat sat on a mat", "cat sat", 0.0, 0.0, 2 / 3, 0.5, 1.0),
    ("cat cat cat", "cat", 0.0, 0.0, 1.0, 1.0, 1.0),  # sets: repetition does not count
    # A side without words: 0 for the word metrics, even when both sides have none.
    ("", "", 1.0, 1.0, 0.0, 0.0, 0.0),
    ("", "x", 0.0, 0.0, 0.0, 0.0, 0.0),
    ("The", "Paris<OR>", 0.0, 1.0, 0.0, 0.0, 0.0),  # empty alternative: both normalise to ""
    ("an", "a", 0.0, 1.0, 0.0, 0.0, 0.0),  # article-only
    ("Paris", "<OR>Paris", 1.0, 1.0, 1.0, 1.0, 1.0),
    ("Paris", "London<OR>", 0.0, 0.0, 0.0, 0.0, 0.0),
    # Normalisation splits on " " only: the article joined by a newline, tab or NBSP stays.
    # Word sets then split on any whitespace: {the, cat} against {cat}.
    ("the\ncat", "the cat", 0.0, 0.0, 2 / 3, 0.5, 1.0),
    ("the\tcat", "cat", 0.0, 0.0, 2 / 3, 0.5, 1.0),
    (f"a{NBSP}cat", "cat", 0.0, 0.0, 2 / 3, 0.5, 1.0),
    ("the  cat", "cat", 0.0, 1.0, 1.0, 1.0, 1.0),  # two spaces: an empty word, dropped
    ("Cat\n", "\tcat", 0.0, 1.0, 1.0, 1.0, 1.0),  # outer whitespace stripped before
]


@pytest.mark.parametrize(("response", "reference", "em", "qem", "f1", "p", "r"), QA_CASES)
def test_qa_scores(
    response: str, reference: str, em: float, qem: float, f1: float, p: float, r: float
) -> None:
    texts = {"response": response, "reference": reference}
    assert score("fmeval/exact_match", None, **texts) == em
    assert score("fmeval/quasi_exact_match", None, **texts) == qem
    assert score("fmeval/f1_over_words", None, **texts) == pytest.approx(f1)
    assert score("fmeval/precision_over_words", None, **texts) == pytest.approx(p)
    assert score("fmeval/recall_over_words", None, **texts) == pytest.approx(r)


def test_custom_delimiter() -> None:
    params = {"target_output_delimiter": "|"}
    assert score("fmeval/exact_match", params, response="b", reference="a|b") == 1.0
    assert score("fmeval/exact_match", response="b", reference="a|b") == 0.0


@pytest.mark.parametrize(
    "name",
    [
        "fmeval/exact_match",
        "fmeval/quasi_exact_match",
        "fmeval/f1_over_words",
        "fmeval/precision_over_words",
        "fmeval/recall_over_words",
        "fmeval/factual_knowledge",
    ],
)
def test_an_empty_delimiter_is_refused(name: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        score(name, {"target_output_delimiter": ""}, response="x", reference="x")
    field = caught.value.violations[0].field
    assert field.endswith("metric_spec_parameters.target_output_delimiter")


# (response, reference, params, exact_inclusion, quasi_exact_inclusion)
AND = {"target_output_delimiter": "<AND>", "logical_operator": "AND"}
FACTUAL = [
    ("England", "England<OR>UK", {}, 1.0, 1.0),  # fmeval
    ("England or wait Scotland", "England<OR>UK", {}, 1.0, 1.0),  # fmeval
    ("England", "India or maybe Pakistan", {}, 0.0, 0.0),  # fmeval
    ("Quentin Tarantino", "QUENTIN TARANTINO", {}, 1.0, 1.0),  # fmeval
    (  # fmeval
        "Chief Executive Officer of Amazon.com Inc.",
        "Chief Executive Officer of Amazon.com, Inc.",
        {},
        0.0,
        1.0,
    ),
    (" Quentin   Tarantino ", "QUENTIN TARANTINO", {}, 0.0, 1.0),  # fmeval
    (  # fmeval
        "George Washington - an American Founding Father",
        "George Washington: an American Founding Father",
        {},
        0.0,
        1.0,
    ),
    ("Red, blue, and yellow", "Red<AND>Blue<AND>Yellow", AND, 1.0, 1.0),  # fmeval
    (  # fmeval
        "The three primary colors are blue, yellow, and red",
        "Red<AND>Blue<AND>Yellow",
        AND,
        1.0,
        1.0,
    ),
    ("Red and blue", "Red<AND>Blue<AND>Yellow", AND, 0.0, 0.0),  # fmeval
    ("the U.S.A.", "usa", {}, 0.0, 1.0),  # exact inclusion keeps punctuation
    ("PARIS and LYON", "paris<OR>lyon", {"logical_operator": "AND"}, 1.0, 1.0),
    ("x", "Paris<OR>", {}, 1.0, 1.0),  # the empty alternative is in every response
    ("cat", "The", {}, 0.0, 1.0),  # the target normalises to nothing: included
    ("the\ncat sat", "the cat", {}, 0.0, 1.0),  # "cat" is in "the\ncat sat"
    ("the cat", "the\ncat", {}, 0.0, 0.0),  # the target keeps "the\ncat": not in "cat"
]


@pytest.mark.parametrize(("response", "reference", "params", "exact", "quasi"), FACTUAL)
def test_factual_knowledge(
    response: str, reference: str, params: dict[str, Any], exact: float, quasi: float
) -> None:
    texts = {"response": response, "reference": reference}
    assert score("fmeval/factual_knowledge", params, **texts) == exact
    quasi_params = {**params, "score": "quasi_exact_inclusion"}
    assert score("fmeval/factual_knowledge", quasi_params, **texts) == quasi


# (response, reference, valid labels, expected)
CLASSIFICATION = [
    ("4", "4", ["1", "2", "3", "4", "5"], 1.0),  # fmeval
    ("1", "2", ["1", "2", "3", "4", "5"], 0.0),  # fmeval
    ("The answer is 1", "1", ["0", "1"], 1.0),  # fmeval converter: "1"
    ("The answer is 1 or 0", "1", ["0", "1"], 1.0),  # fmeval converter: first label wins
    ("2", "2", ["0", "1"], 0.0),  # fmeval converter: "unknown"
    ("One", "one", ["zero", "one"], 1.0),  # fmeval converter: "one"
    ("one", "one", ["zero", "One"], 1.0),  # fmeval converter: "one"
    ("I think negative overall", "negative", ["positive", "negative"], 1.0),
    ("positive negative", "negative", ["positive", "negative"], 0.0),  # first label wins
    # The converted label is lowercased, the reference compared as is.
    ("positive", "Positive", ["positive", "negative"], 0.0),
    ("positive", "positive ", ["positive", "negative"], 0.0),
    # Words split on spaces only; each word is then stripped.
    ("positive\n", "positive", ["positive"], 1.0),
    ("label:\npositive", "positive", ["positive"], 0.0),
    ("is\tpositive", "positive", ["positive"], 0.0),
    # Without valid labels the reference is the one valid label.
    ("it is positive", "positive", None, 1.0),
    ("Positive", "Positive", None, 0.0),  # lowercased prediction, reference as is
    ("neutral", "positive", None, 0.0),
]


@pytest.mark.parametrize(("response", "reference", "labels", "expected"), CLASSIFICATION)
def test_classification_accuracy(
    response: str, reference: str, labels: list[str] | None, expected: float
) -> None:
    params = {} if labels is None else {"valid_labels": labels}
    got = score("fmeval/classification_accuracy", params, response=response, reference=reference)
    assert got == expected


def test_classification_averaging_is_checked() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score(
            "fmeval/classification_accuracy",
            {"multiclass_average_strategy": "median"},
            response="a",
            reference="a",
        )
    assert caught.value.violations[0].field.endswith("multiclass_average_strategy")


def test_missing_reference_names_the_field() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("fmeval/exact_match", response="x")
    assert caught.value.violations[0].field == "instance.reference"


def test_unknown_parameter_names_it() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("fmeval/exact_match", {"delimiter": "|"}, response="x", reference="x")
    assert caught.value.violations[0].field.endswith("metric_spec_parameters.delimiter")


PEER = json.loads((Path(__file__).parent / "fmeval_peer_values.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "case", PEER["cases"], ids=[f"{c['metric']}-{i}" for i, c in enumerate(PEER["cases"])]
)
def test_fmeval_values_recorded_from_fmeval_itself(case: dict[str, Any]) -> None:
    """Values FMEval's own functions gave on generated edge cases (see the file's source)."""
    got = score(
        case["metric"], case["parameters"], response=case["response"], reference=case["reference"]
    )
    assert got == pytest.approx(case["fmeval"], abs=1e-12)
