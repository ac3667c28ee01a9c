"""NeMo ``number-check``: compare the last number of two rendered templates."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.api_params import comparison
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

Number = int | float
ABSOLUTE_DIFFERENCE = "absolute difference"
COMPARISONS: dict[str, Callable[[Number, Number], bool]] = {
    # NeMo's spellings, aliases included (its NumberCheckOperation).
    "equals": operator.eq,
    "==": operator.eq,
    "not equals": operator.ne,
    "!=": operator.ne,
    "<>": operator.ne,
    "greater than or equal": operator.ge,
    ">=": operator.ge,
    "gte": operator.ge,
    "greater than": operator.gt,
    ">": operator.gt,
    "gt": operator.gt,
    "less than or equal": operator.le,
    "<=": operator.le,
    "lte": operator.le,
    "less than": operator.lt,
    "<": operator.lt,
    "lt": operator.lt,
}
OPERATIONS = (*COMPARISONS, ABSOLUTE_DIFFERENCE)

# An optional sign, then digits and dots ending in a digit: "-0.22", ".75", "127.0.0.1".
_NUMBER = re.compile(r"[+-]?[.\d]*\d+")


def last_number(text: str) -> Number | None:
    """The last number in ``text``: an int without a dot, a float with one; None when there is
    none, or when the last one has several dots (an IP address, a version)."""
    found = _NUMBER.findall(text)
    if not found:
        return None
    dots = found[-1].count(".")
    if dots == 0:
        return int(found[-1])
    return float(found[-1]) if dots == 1 else None


class NumberCheck(ComputedNamed):
    """1 when ``left <operation> right`` holds for the last numbers of the rendered templates."""

    name = "nemo/number-check"
    family = "nemo"
    definition = (
        "`check` is `[left, operation, right]`: both sides are Jinja2 templates over the "
        "instance, rendered, then read as the last number in the text (regular expression "
        "`[+-]?[.\\d]*\\d+`: an int without a dot, a float with one; `1` equals `1.0`). When "
        "either side has no number, or its last one has several dots (`127.0.0.1`), the score "
        "is NaN, as in NeMo: left out of the dataset's statistics and counted under `nan`. "
        "Otherwise 1 if the operation holds, else 0. Operations (NeMo's): `equals` or `==`; "
        "`not equals`, `!=` or `<>`; `greater than or equal`, `>=` or `gte`; `greater than`, "
        "`>` or `gt`; `less than or equal`, `<=` or `lte`; `less than`, `<` or `lt`; "
        "`absolute difference`: `|left - right| <= epsilon`, which needs `epsilon`; another "
        "operation with a non-zero `epsilon` is refused. evald also accepts the operations in "
        "any letter case and with surrounding spaces (NeMo refuses those)."
    )
    parameters = (
        Parameter(
            "check",
            "string list",
            "[left template, operation, right template]",
            ["{{reference}}", "equals", "{{response}}"],
        ),
        Parameter("epsilon", "number", "tolerance of `absolute difference`", None),
    )
    score_range = "0 or 1 (NaN without a number)"
    nemo_type = "number-check"
    nemo_score_names = ("number-check",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        return comparison(params, path, OPERATIONS, extra=("epsilon",))

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        check = params.strings("check")
        field = params.field("check")
        if check is None or len(check) != 3:
            raise InvalidArgument(field, "must be [left template, operation, right template]")
        left, operation, right = check
        wanted = operation.strip().lower()
        if wanted not in OPERATIONS:
            raise InvalidArgument(
                f"{field}[1]", f"unknown operation {operation!r}; one of: {', '.join(OPERATIONS)}"
            )
        epsilon = None if params.values.get("epsilon") is None else params.number("epsilon")
        if wanted == ABSOLUTE_DIFFERENCE and epsilon is None:
            raise InvalidArgument(params.field("epsilon"), f"{ABSOLUTE_DIFFERENCE} needs epsilon")
        if wanted != ABSOLUTE_DIFFERENCE and epsilon:  # NeMo lets a zero epsilon through
            raise InvalidArgument(
                params.field("epsilon"), f"epsilon is only for {ABSOLUTE_DIFFERENCE}"
            )
        variables = instance.variables()
        a_text = render(left, variables, f"{field}[0]")
        b_text = render(right, variables, f"{field}[2]")
        a, b = last_number(a_text), last_number(b_text)
        if a is None or b is None:
            side, text = ("left", a_text) if a is None else ("right", b_text)
            return Outcome(math.nan, f"no number in the {side} value {text!r}")
        if wanted == ABSOLUTE_DIFFERENCE:
            assert epsilon is not None
            held = abs(a - b) <= epsilon
        else:
            held = COMPARISONS[wanted](a, b)
        return Outcome(1.0 if held else 0.0, f"{a!r} {operation} {b!r}: {str(held).lower()}")
