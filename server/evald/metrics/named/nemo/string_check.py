"""NeMo ``string-check``: compare two rendered templates with one string operation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.named.nemo.api_params import comparison
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render

OPERATIONS: dict[str, Callable[[str, str], bool]] = {
    # NeMo's spellings, aliases included (its StringCheckOperation).
    "equals": lambda a, b: a == b,
    "==": lambda a, b: a == b,
    "not equals": lambda a, b: a != b,
    "!=": lambda a, b: a != b,
    "<>": lambda a, b: a != b,
    "contains": lambda a, b: b in a,
    "not contains": lambda a, b: b not in a,
    "startswith": lambda a, b: a.startswith(b),
    "endswith": lambda a, b: a.endswith(b),
}


class StringCheck(ComputedNamed):
    """1 when ``left <operation> right`` holds for the rendered templates, else 0."""

    name = "nemo/string-check"
    family = "nemo"
    definition = (
        "`check` is `[left, operation, right]`: both sides are Jinja2 templates over the "
        "instance, rendered as is (no trimming or case folding; use `| trim`, `| lower`). "
        "Score 1 if the operation holds, else 0. Operations (NeMo's): `equals` or `==`, "
        "`not equals`, `!=` or `<>`, `contains` (right is a substring of left), "
        "`not contains`, `startswith` (left starts with right), `endswith`. evald also "
        "accepts them in any letter case and with surrounding spaces (NeMo refuses those)."
    )
    parameters = (
        Parameter(
            "check",
            "string list",
            "[left template, operation, right template]",
            ["{{response}}", "equals", "{{reference}}"],
        ),
    )

    nemo_type = "string-check"
    nemo_score_names = ("string-check",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        return comparison(params, path, tuple(OPERATIONS))

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        check = params.strings("check")
        field = params.field("check")
        if check is None or len(check) != 3:
            raise InvalidArgument(field, "must be [left template, operation, right template]")
        left, operation, right = check
        test = OPERATIONS.get(operation.strip().lower())
        if test is None:
            raise InvalidArgument(
                f"{field}[1]", f"unknown operation {operation!r}; one of: {', '.join(OPERATIONS)}"
            )
        variables = instance.variables()
        a = render(left, variables, f"{field}[0]")
        b = render(right, variables, f"{field}[2]")
        held = test(a, b)
        return Outcome(1.0 if held else 0.0, f"{a!r} {operation} {b!r}: {str(held).lower()}")
