"""Reading verdicts out of judge text, and combining samples (hand-worked cases)."""

from __future__ import annotations

import pytest
from evald.judges.output import OutputError
from evald.judging import verdicts
from evald.judging.verdicts import BINARY, LIKERT, OPEN, VERBOSITY
from hypothesis import given
from hypothesis import strategies as st

SCORE_CASES = [
    # (judge text, scale, expected score, expected explanation)
    ('{"explanation": "clear", "score": 4}', LIKERT, 4.0, "clear"),
    ('```json\n{"score": 5, "explanation": "x"}\n```', LIKERT, 5.0, "x"),
    ('Sure! Here it is: {"rating": "2", "reasoning": "weak"} hope that helps', LIKERT, 2.0, "weak"),
    ("Explanation: fine grammar\nScore: 3", LIKERT, 3.0, "fine grammar"),
    ("**Score:** 1\n", BINARY, 1.0, "**Score:** 1"),
    ('{"score": -2, "explanation": "terse"}', VERBOSITY, -2.0, "terse"),
    ('{"score": 0.75, "explanation": "e"}', OPEN, 0.75, "e"),
    ("score = 4 out of 5", LIKERT, 4.0, "score = 4 out of 5"),
]

BAD_SCORES = [
    ("I think it is good.", LIKERT),
    ('{"score": 7, "explanation": "x"}', LIKERT),  # outside 1..5
    ('{"score": 3.5, "explanation": "x"}', LIKERT),  # not on the scale
    ('{"score": 2}', BINARY),
    ('{"score": 4, "expla', LIKERT),  # truncated JSON
    ('{"score": "high"}', LIKERT),
    ('{"score": true}', BINARY),
    ("", LIKERT),
]

CHOICE_CASES = [
    ('{"explanation": "B is concise", "pairwise_choice": "B"}', "B", "B is concise"),
    ('{"pairwise_choice": "SAME", "explanation": "equal"}', "SAME", "equal"),
    ("Response A rambles.\npairwise_choice: A", "A", "Response A rambles.\npairwise_choice: A"),
    ("Both are fine.\n\nSAME", "SAME", "Both are fine.\n\nSAME"),
    ('```\n{"choice": "Response B", "reasoning": "r"}\n```', "B", "r"),
    ('{"pairwise_choice": "tie", "explanation": "t"}', "SAME", "t"),
]

BAD_CHOICES = ["I cannot decide.", '{"pairwise_choice": "C"}', '{"pairwise_choice": "B"', ""]

MEDIAN = [
    # (sample scores, final, confidence): the median; an even split gives the midpoint, each
    # sample at one of the two middle values counting half
    ([4.0], 4.0, 1.0),
    ([4.0, 2.0, 4.0], 4.0, 2 / 3),
    ([2.0, 4.0], 3.0, 0.5),
    ([4.0, 2.0], 3.0, 0.5),
    ([0.0, 1.0], 0.5, 0.5),
    ([1.0, 0.0, 1.0, 0.0], 0.5, 0.5),
    ([-1.0, 1.0], 0.0, 0.5),
    ([1.0, 2.0, 5.0], 2.0, 1 / 3),
    ([5.0, 5.0, 1.0, 1.0, 4.0], 4.0, 1 / 5),
    ([0.0, 1.0, 1.0, 0.0, 0.0], 0.0, 3 / 5),
    ([2.0, 3.0, 3.0, 5.0], 3.0, 1 / 2),
    ([1.0, 2.0, 4.0, 5.0], 3.0, 1 / 4),
    ([4.0, 4.0, 4.0, 4.0], 4.0, 1.0),
]

PAIRWISE_MAJORITY = [
    (["CANDIDATE"], "CANDIDATE"),
    (["BASELINE", "BASELINE", "CANDIDATE"], "BASELINE"),
    (["BASELINE", "CANDIDATE"], "TIE"),
    (["TIE", "CANDIDATE"], "TIE"),
    (["TIE", "TIE", "CANDIDATE"], "TIE"),
    (["CANDIDATE", "CANDIDATE", "TIE", "BASELINE"], "CANDIDATE"),
]


@pytest.mark.parametrize(("text", "scale", "score", "explanation"), SCORE_CASES)
def test_read_score(text: str, scale: verdicts.Scale, score: float, explanation: str) -> None:
    verdict = verdicts.read_score(text, scale)
    assert verdict.value == score
    assert verdict.explanation == explanation


@pytest.mark.parametrize(("text", "scale"), BAD_SCORES)
def test_unreadable_score_is_an_error_not_a_score(text: str, scale: verdicts.Scale) -> None:
    with pytest.raises(OutputError):
        verdicts.read_score(text, scale)


@pytest.mark.parametrize(("text", "letter", "explanation"), CHOICE_CASES)
def test_read_choice(text: str, letter: str, explanation: str) -> None:
    choice = verdicts.read_choice(text)
    assert (choice.letter, choice.explanation) == (letter, explanation)


@pytest.mark.parametrize("text", BAD_CHOICES)
def test_unreadable_choice(text: str) -> None:
    with pytest.raises(OutputError):
        verdicts.read_choice(text)


@pytest.mark.parametrize(("values", "final", "confidence"), MEDIAN)
def test_median_score(values: list[float], final: float, confidence: float) -> None:
    score, agreement = verdicts.median_score(values)
    assert score == final
    assert agreement == pytest.approx(confidence)


@given(st.lists(st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0]), min_size=1, max_size=8))
def test_median_is_symmetric(values: list[float]) -> None:
    """Mirroring the scale (1..5 -> 5..1) mirrors the result: no direction is favoured."""
    final, confidence = verdicts.median_score(values)
    mirrored, same = verdicts.median_score([6.0 - v for v in values])
    assert (mirrored, same) == (6.0 - final, confidence)
    assert min(values) <= final <= max(values)


@pytest.mark.parametrize(("choices", "final"), PAIRWISE_MAJORITY)
def test_majority_choice(choices: list[str], final: str) -> None:
    assert verdicts.majority_choice(choices) == final


def test_mean_score() -> None:
    assert verdicts.mean_score([0.1, 0.2, 0.6]) == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("scale", "minimum", "maximum"), [(LIKERT, 1, 5), (BINARY, 0, 1), (VERBOSITY, -2, 2)]
)
def test_schema_bounds_match_scale(scale: verdicts.Scale, minimum: int, maximum: int) -> None:
    score = scale.schema()["properties"]["score"]
    assert (score["type"], score["minimum"], score["maximum"]) == ("integer", minimum, maximum)
