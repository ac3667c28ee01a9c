"""Score scales, reading a judge's verdict, and combining the verdicts of several samples.

Aggregation rules (``autorater_config.sampling_count`` samples, 4 when unset):

- discrete scale (every predefined pointwise metric): the median of the samples. With an even
  number of samples whose two middle values differ, their midpoint: [2, 4] gives 3, [0, 1]
  gives 0.5, verbosity [-1, 1] gives 0. The rule is symmetric: reversing the scale reverses
  the result, so no direction is favoured when samples split.
- open scale (``pointwise_metric_input``): the mean of the samples.
- pairwise: the majority choice; when the top count is shared, ``TIE``.
- ``confidence`` = share of samples whose verdict equals the final one; when the final score is
  the midpoint of an even split, each sample at one of the two middle values counts as half;
  for a pairwise TIE from a split, the share behind each of the leading choices.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evald.judges.output import OutputError, field_line, json_object, lookup

SCORE_KEYS = ("score", "rating", "final_score", "grade")
CHOICE_KEYS = ("pairwise_choice", "choice", "preference", "verdict", "winner")
EXPLANATION_KEYS = ("explanation", "reasoning", "rationale", "justification")


@dataclass(frozen=True)
class Scale:
    """The scores a pointwise metric may give; ``values`` None means any finite number."""

    name: str
    values: tuple[int, ...] | None = None

    @property
    def discrete(self) -> bool:
        """Whether scores are a fixed set (majority vote) rather than open (mean)."""
        return self.values is not None

    def describe(self) -> str:
        """``1..5``, ``0 or 1``, ... for prompts and messages."""
        if self.values is None:
            return "a number"
        if len(self.values) == 2:
            return f"{self.values[0]} or {self.values[1]}"
        return f"an integer from {self.values[0]} to {self.values[-1]}"

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a pointwise verdict (explanation first: reason, then score)."""
        score: dict[str, Any] = {"type": "number"}
        if self.values is not None:
            score = {"type": "integer", "minimum": self.values[0], "maximum": self.values[-1]}
        return {
            "type": "object",
            "properties": {"explanation": {"type": "string"}, "score": score},
            "required": ["explanation", "score"],
        }


LIKERT = Scale("1-5", (1, 2, 3, 4, 5))
BINARY = Scale("0-1", (0, 1))
VERBOSITY = Scale("-2..2", (-2, -1, 0, 1, 2))
OPEN = Scale("open")

PAIRWISE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string"},
        "pairwise_choice": {"type": "string", "enum": ["A", "SAME", "B"]},
    },
    "required": ["explanation", "pairwise_choice"],
}


@dataclass(frozen=True)
class Score:
    """One pointwise sample's verdict."""

    value: float
    explanation: str


@dataclass(frozen=True)
class Choice:
    """One pairwise sample's verdict: ``A``, ``SAME`` or ``B`` as the judge wrote it."""

    letter: str
    explanation: str


_NUMBER = re.compile(r"^[+-]?\d+(?:\.\d+)?")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = _NUMBER.match(value.strip())
        return float(match.group()) if match else None
    return None


def _explanation(obj: dict[str, Any] | None, text: str) -> str:
    if obj is not None:
        value = lookup(obj, EXPLANATION_KEYS)
        if value is not None:
            return str(value)
    line = field_line(text, EXPLANATION_KEYS)
    return line if line is not None else text.strip()


def read_score(text: str, scale: Scale) -> Score:
    """The score in a judge answer: a JSON object (bare or fenced), else a ``score: N`` line."""
    obj = json_object(text)
    raw = lookup(obj, SCORE_KEYS) if obj is not None else None
    if raw is None:
        raw = field_line(text, SCORE_KEYS)
    value = _number(raw)
    if value is None or not math.isfinite(value):
        raise OutputError(
            "no score found" if raw is None else f"score {str(raw)[:40]!r} is not a number"
        )
    if scale.values is not None and value not in scale.values:
        raise OutputError(f"score {value:g} is not {scale.describe()}")
    return Score(value, _explanation(obj, text))


_LETTERS = {
    "A": "A",
    "RESPONSE A": "A",
    "B": "B",
    "RESPONSE B": "B",
    "SAME": "SAME",
    "TIE": "SAME",
    "EQUAL": "SAME",
}


def _letter(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    token = raw.strip().strip("\"'`*.[]()").strip().upper()
    return _LETTERS.get(token)


def read_choice(text: str) -> Choice:
    """The pairwise choice in a judge answer: JSON, a ``pairwise_choice: B`` line, or a last
    line that is just ``A``, ``B`` or ``SAME``."""
    obj = json_object(text)
    raw: Any = lookup(obj, CHOICE_KEYS) if obj is not None else None
    if raw is None:
        raw = field_line(text, CHOICE_KEYS)
    if raw is None:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        raw = lines[-1] if lines else None
    letter = _letter(raw)
    if letter is None:
        raise OutputError("no choice of A, SAME or B found")
    return Choice(letter, _explanation(obj, text))


def median_score(values: Sequence[float]) -> tuple[float, float]:
    """The median of ``values`` (the midpoint of the two middle ones for an even count) and
    the share of samples agreeing with it (see the module rules)."""
    ordered = sorted(values)
    n = len(ordered)
    low, high = ordered[(n - 1) // 2], ordered[n // 2]
    if low == high:
        return low, ordered.count(low) / n
    return (low + high) / 2, (ordered.count(low) + ordered.count(high)) / (2 * n)


def mean_score(values: Sequence[float]) -> float:
    """The arithmetic mean."""
    return math.fsum(values) / len(values)


def majority_choice(choices: Sequence[str]) -> str:
    """The most frequent of BASELINE/CANDIDATE/TIE; a shared top count is a TIE."""
    counts = Counter(choices).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return "TIE"
    return counts[0][0]
