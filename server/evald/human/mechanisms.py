"""FMEval's five human rating mechanisms: what a rating of each holds and how it is checked.

Comparative mechanisms rate a pair of responses (models A and B) with one rating per row and
rater, stored under the item :data:`PAIR`; individual ones rate each model's response alone,
one rating per model (the item is the model's name), for one model or two, as in FMEval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evald.errors import InvalidArgument

LIKERT_COMPARISON = "likert_comparison"
CHOICE = "choice_buttons"
RANK = "ordinal_rank"
THUMBS = "thumbs_up_down"
LIKERT_INDIVIDUAL = "likert_individual"

COMPARATIVE = (LIKERT_COMPARISON, CHOICE, RANK)
INDIVIDUAL = (THUMBS, LIKERT_INDIVIDUAL)
MECHANISMS = (*COMPARATIVE, *INDIVIDUAL)

PAIR = "pair"
"""The item a comparative rating is stored under."""
TIE = "tie"
UP, DOWN = "up", "down"
DEFAULT_SCALE = 5
SCALES = range(3, 11)
"""Likert scales evald accepts (FMEval's is 5 points)."""


@dataclass(frozen=True)
class Kind:
    """What a task's ratings look like: its mechanism, models, Likert scale, whether choice
    buttons offer a tie."""

    mechanism: str
    models: tuple[str, ...]
    scale: int = DEFAULT_SCALE
    allow_tie: bool = False

    @property
    def comparative(self) -> bool:
        return self.mechanism in COMPARATIVE

    @property
    def items(self) -> tuple[str, ...]:
        """The items one rater rates per row."""
        return (PAIR,) if self.comparative else self.models

    def check_item(self, model: Any, field: str = "model") -> str:
        """The item a rating is for: ``model`` for individual mechanisms (may be left out when
        the task has one model), nothing for comparative ones."""
        if self.comparative:
            if model not in (None, ""):
                raise InvalidArgument(field, f"{self.mechanism} rates the pair: leave it out")
            return PAIR
        if model in (None, "") and len(self.models) == 1:
            return self.models[0]
        if model not in self.models:
            raise InvalidArgument(field, f"must be one of the task's models {list(self.models)}")
        return str(model)

    def check_value(self, value: Any, field: str = "value") -> Any:
        """``value`` as stored; InvalidArgument naming ``field`` if the mechanism refuses it."""
        if self.mechanism in (LIKERT_COMPARISON, LIKERT_INDIVIDUAL):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgument(field, f"a Likert rating is an integer 1..{self.scale}")
            if not 1 <= value <= self.scale:
                raise InvalidArgument(field, f"a Likert rating is between 1 and {self.scale}")
            return value
        if self.mechanism == THUMBS:
            if value not in (UP, DOWN):
                raise InvalidArgument(field, f"thumbs are '{UP}' or '{DOWN}'")
            return value
        if self.mechanism == CHOICE:
            allowed = [*self.models, TIE] if self.allow_tie else list(self.models)
            if not isinstance(value, str) or value not in allowed:
                raise InvalidArgument(field, f"choose one of {allowed}")
            return value
        # Ordinal rank: every model gets a rank, the ranks are 1..n once each.
        if not isinstance(value, dict) or set(value) != set(self.models):
            raise InvalidArgument(
                field, f"rank every model: an object with keys {list(self.models)}"
            )
        ranks = list(value.values())
        if any(isinstance(r, bool) or not isinstance(r, int) for r in ranks) or sorted(
            ranks
        ) != list(range(1, len(self.models) + 1)):
            raise InvalidArgument(
                field, f"ranks are 1..{len(self.models)}, each once (1 is the most preferred)"
            )
        return {m: value[m] for m in self.models}


def check_kind(mechanism: Any, models: list[str], scale: Any, allow_tie: Any) -> Kind:
    """The task's :class:`Kind`; InvalidArgument naming the field at fault."""
    if mechanism not in MECHANISMS:
        raise InvalidArgument("mechanism", f"must be one of {list(MECHANISMS)}")
    if mechanism in COMPARATIVE and len(models) != 2:
        raise InvalidArgument("models", f"{mechanism} compares two models' responses: name two")
    if mechanism in INDIVIDUAL and len(models) not in (1, 2):
        raise InvalidArgument("models", f"{mechanism} rates one or two models' responses")
    if scale is None:
        scale = DEFAULT_SCALE
    if isinstance(scale, bool) or not isinstance(scale, int) or scale not in SCALES:
        raise InvalidArgument(
            "scale", f"a Likert scale has {SCALES.start}..{SCALES.stop - 1} points"
        )
    if allow_tie is None:
        allow_tie = False
    if not isinstance(allow_tie, bool):
        raise InvalidArgument("allow_tie", "must be true or false")
    if allow_tie and mechanism != CHOICE:
        raise InvalidArgument("allow_tie", "only choice buttons offer a tie")
    return Kind(mechanism, tuple(models), scale, allow_tie)
