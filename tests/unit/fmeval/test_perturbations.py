"""FMEval's prompt perturbations: identity with FMEval's own output, recorded in
perturbation_cases.json (see its "source"), and the properties that hold for any text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from evald.fmeval.perturbations import (
    DEFAULT_SEED,
    PERTURBATIONS,
    ButterFinger,
    Perturbation,
    RandomUpperCase,
    WhitespaceAddRemove,
    perturb,
    perturb_with,
)
from hypothesis import given, settings
from hypothesis import strategies as st

RECORDED = json.loads(Path(__file__).with_name("perturbation_cases.json").read_text("utf-8"))
CASES: list[dict[str, Any]] = RECORDED["cases"]
STREAMS: list[dict[str, Any]] = RECORDED["streams"]


def build(case: dict[str, Any]) -> Perturbation:
    return PERTURBATIONS[case["perturbation_type"]](**case["params"])


def test_the_cases_say_where_they_come_from() -> None:
    assert "FMEval" in RECORDED["source"]
    assert len(CASES) >= 800


def grouped(cases: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The cases by perturbation, parameters and seed: one test per group keeps the suite fast."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        params = "-".join(f"{k}={v}" for k, v in case["params"].items())
        groups.setdefault(f"{case['perturbation_type']}-{params}-seed={case['seed']}", []).append(
            case
        )
    return groups


GROUPS = grouped(CASES)


@pytest.mark.parametrize("name", GROUPS)
def test_same_strings_as_fmeval(name: str) -> None:
    for case in GROUPS[name]:
        got = perturb(build(case), case["text"], case["seed"])
        assert (case["text"], got) == (case["text"], case["expected"])


@pytest.mark.parametrize("stream", STREAMS, ids=[s["perturbation_type"] for s in STREAMS])
def test_one_generator_over_successive_texts_as_one_fmeval_transform(
    stream: dict[str, Any],
) -> None:
    rng = np.random.default_rng(stream["seed"])
    got = [perturb_with(build(stream), text, rng) for text in stream["texts"]]
    assert got == stream["expected"]


def test_fmeval_names_and_defaults() -> None:
    assert {
        "butter_finger": ButterFinger,
        "random_upper_case": RandomUpperCase,
        "whitespace_add_remove": WhitespaceAddRemove,
    } == PERTURBATIONS
    assert ButterFinger() == ButterFinger(perturbation_prob=0.1, num_perturbations=5)
    assert RandomUpperCase() == RandomUpperCase(uppercase_fraction=0.1, num_perturbations=5)
    assert WhitespaceAddRemove() == WhitespaceAddRemove(
        add_prob=0.05, remove_prob=0.1, num_perturbations=5
    )
    assert DEFAULT_SEED == 5


def test_fmevals_documented_example() -> None:
    # FMEval's default seed and parameters on the sentence of its docstrings.
    assert perturb(ButterFinger(), "A quick brown fox jumps over the lazy dog 10 times.") == [
        "A qujci brown fox mum[s ovev the lazy dog 10 tioef.",
        "A quick brown fox jumps over the lazn dog 10 timew.",
        "A quick brjfn fox jumps ovet the lazy dog 10 times.",
        "A quivk brown fox jumps over rhe lszy dog 10 times.",
        "X qoick brown fox jumps over tne masy dog 10 tumes.",
    ]


def test_letters_whose_cases_do_not_round_trip_change_even_without_typos() -> None:
    assert perturb(ButterFinger(0.0, 1), "Straße ẞ") == ["Straße SS"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ButterFinger(perturbation_prob=1.5), "perturbation_prob"),
        (lambda: ButterFinger(num_perturbations=0), "num_perturbations"),
        (lambda: RandomUpperCase(uppercase_fraction=-0.1), "uppercase_fraction"),
        (lambda: WhitespaceAddRemove(add_prob=2.0), "add_prob"),
        (lambda: WhitespaceAddRemove(remove_prob=-1.0), "remove_prob"),
        (lambda: WhitespaceAddRemove(num_perturbations=True), "num_perturbations"),
    ],
)
def test_bad_parameters_are_refused(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


probabilities = st.floats(min_value=0.0, max_value=1.0)
counts = st.integers(min_value=1, max_value=6)
seeds = st.integers(min_value=0, max_value=2**64)
perturbations = st.one_of(
    st.builds(ButterFinger, probabilities, counts),
    st.builds(RandomUpperCase, probabilities, counts),
    st.builds(WhitespaceAddRemove, probabilities, probabilities, counts),
)
texts = st.text(max_size=80)
# Characters whose case survives lower() then upper(): the ones FMEval's butter finger leaves
# alone when no typo is drawn.
round_trip_texts = st.text(
    st.characters(exclude_categories=["Cs"]).filter(
        lambda c: c.lower() == c or c.lower().upper() == c
    ),
    max_size=80,
)
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(perturbations, texts, seeds)
def test_as_many_copies_as_asked_and_the_same_for_the_same_seed(
    perturbation: Perturbation, text: str, seed: int
) -> None:
    first = perturb(perturbation, text, seed)
    assert len(first) == perturbation.num_perturbations
    assert perturb(perturbation, text, seed) == first
    assert perturb_with(perturbation, text, np.random.default_rng(seed)) == first


@FAST
@given(perturbations, texts, seeds)
def test_copies_come_from_one_stream_so_fewer_copies_are_a_prefix(
    perturbation: Perturbation, text: str, seed: int
) -> None:
    fewer = type(perturbation)(**{**vars(perturbation), "num_perturbations": 1})
    assert perturb(fewer, text, seed) == perturb(perturbation, text, seed)[:1]


@FAST
@given(round_trip_texts, counts, seeds)
def test_butter_finger_without_typos_leaves_text_as_is(text: str, n: int, seed: int) -> None:
    assert perturb(ButterFinger(0.0, n), text, seed) == [text] * n


@FAST
@given(st.text("abcdefghijklmnopqrstuvwxyz ,.!?0123456789", max_size=80), probabilities, seeds)
def test_butter_finger_types_one_key_for_one_and_spares_other_keys(
    text: str, prob: float, seed: int
) -> None:
    for copy in perturb(ButterFinger(prob, 3), text, seed):
        assert len(copy) == len(text)
        for before, after in zip(text, copy, strict=True):
            if before.isalpha():
                assert after.isalpha() or after in "['"
            else:
                assert after == before


@FAST
@given(st.text("abcdefghijklmnopqrstuvwxyz0123456789 ", max_size=80), probabilities, seeds)
def test_random_upper_case_upper_cases_that_many_positions(
    text: str, fraction: float, seed: int
) -> None:
    count = int(len(text) * fraction)
    for copy in perturb(RandomUpperCase(fraction, 3), text, seed):
        changed = [i for i, (a, b) in enumerate(zip(text, copy, strict=True)) if a != b]
        assert copy.lower() == text
        assert len(changed) <= count


@FAST
@given(texts, seeds)
def test_random_upper_case_at_the_extremes(text: str, seed: int) -> None:
    assert perturb(RandomUpperCase(0.0, 2), text, seed) == [text] * 2
    assert perturb(RandomUpperCase(1.0, 2), text, seed) == [text.upper()] * 2


@FAST
@given(texts, probabilities, probabilities, seeds)
def test_whitespace_changes_only_whitespace(
    text: str, add: float, remove: float, seed: int
) -> None:
    def solid(s: str) -> str:
        return "".join(c for c in s if not c.isspace())

    for copy in perturb(WhitespaceAddRemove(add, remove, 3), text, seed):
        assert solid(copy) == solid(text)


@FAST
@given(texts, seeds)
def test_whitespace_at_the_extremes(text: str, seed: int) -> None:
    assert perturb(WhitespaceAddRemove(0.0, 0.0, 2), text, seed) == [text] * 2
    removed_all = "".join(c for c in text if not c.isspace())
    assert perturb(WhitespaceAddRemove(0.0, 1.0, 2), text, seed) == [removed_all] * 2
    spaced = "".join(c if c.isspace() else c + " " for c in text)
    assert perturb(WhitespaceAddRemove(1.0, 0.0, 2), text, seed) == [spaced] * 2
