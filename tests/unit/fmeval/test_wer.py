"""Word error rate against cases recorded from jiwer (see record_wer_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evald.metrics.text.wer import corpus_wer, distance, words

CASES: list[dict[str, Any]] = json.loads(
    Path(__file__).with_name("wer_cases.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_equals_jiwer(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(ValueError, match="no words"):
            corpus_wer(case["predictions"], case["references"])
    else:
        # The same integer counts divided once: equal floats, not merely close ones.
        assert corpus_wer(case["predictions"], case["references"]) == case["expected"]


def test_words_follow_jiwer_default_transformation() -> None:
    assert words("  a  b ") == ["a", "b"]
    assert words("a\tb") == ["a\tb"]  # a lone tab stays inside the word
    assert words("a \tb") == ["a", "b"]
    assert words("a\u00a0\u00a0b") == ["a", "b"]
    assert words(" \n ") == []


def test_distance() -> None:
    assert distance(["a", "b", "c"], ["a", "c"]) == 1
    assert distance([], ["a", "b"]) == 2
    assert distance(["kitten"], ["sitting"]) == 1
    assert distance(list("kitten"), list("sitting")) == 3


def test_corpus_rate_is_not_a_mean_of_rates() -> None:
    # 1 error over 1 word and 0 over 3: 1/4, where the mean of the rates would be 1/2.
    assert corpus_wer(["x", "a b c"], ["y", "a b c"]) == 0.25


def test_refusals() -> None:
    with pytest.raises(ValueError, match="references"):
        corpus_wer(["a"], [])
    with pytest.raises(ValueError, match="no predictions"):
        corpus_wer([], [])
