"""Reading a NeMo Evaluator API metric's ``params`` into an evald metric's parameters.

NeMo's configs name some parameters differently (``ground_truth`` or ``reference``), read the
model's output as ``{{sample.output_text}}`` by default, and spell comparisons either as
``check: [left, operation, right]`` or as ``left_template``/``operation``/``right_template``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evald.errors import InvalidArgument

OUTPUT_TEXT = "{{sample.output_text}}"
"""The model's output, NeMo's default candidate."""


def translate(
    params: Mapping[str, Any],
    path: str,
    names: Mapping[str, str],
    *,
    required: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``params`` renamed by ``names`` (NeMo name to evald parameter; several NeMo names may
    give one parameter, but only one of them may be set), over ``defaults``; InvalidArgument
    for an unknown or missing one."""
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise InvalidArgument(
            f"{path}.{unknown[0]}", f"unknown parameter; this metric takes: {', '.join(names)}"
        )
    values = dict(defaults or {})
    given: dict[str, str] = {}
    for nemo_name, own in names.items():
        value = params.get(nemo_name)
        if value is None:
            continue
        if own in given:
            raise InvalidArgument(
                f"{path}.{nemo_name}", f"give either {given[own]} or {nemo_name}, not both"
            )
        given[own] = nemo_name
        values[own] = value
    for own in required:
        if own not in values:
            first = next(n for n, o in names.items() if o == own)
            raise InvalidArgument(f"{path}.{first}", "this parameter is required")
    return values


def comparison(
    params: Mapping[str, Any],
    path: str,
    operations: Sequence[str],
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """``check: [left, operation, right]`` from either of NeMo's spellings (the operation one
    of ``operations``, in any letter case), plus ``extra`` parameters as they are."""
    values = _comparison(params, path, extra)
    check = values["check"]
    if not (isinstance(check, list) and len(check) == 3 and all(isinstance(c, str) for c in check)):
        raise InvalidArgument(f"{path}.check", "must be [left template, operation, right template]")
    if check[1].strip().lower() not in operations:
        where = f"{path}.check[1]" if "check" in params else f"{path}.operation"
        raise InvalidArgument(
            where, f"unknown operation {check[1]!r}; one of: {', '.join(operations)}"
        )
    return values


def _comparison(params: Mapping[str, Any], path: str, extra: Sequence[str]) -> dict[str, Any]:
    split = ("left_template", "operation", "right_template")
    allowed = ("check", *split, *extra)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InvalidArgument(
            f"{path}.{unknown[0]}", f"unknown parameter; this metric takes: {', '.join(allowed)}"
        )
    values = {name: params[name] for name in extra if params.get(name) is not None}
    if params.get("check") is not None:
        if any(params.get(name) is not None for name in split):
            raise InvalidArgument(
                f"{path}.check", "give either check or left_template/operation/right_template"
            )
        values["check"] = params["check"]
        return values
    missing = [name for name in split if not isinstance(params.get(name), str)]
    if missing:
        raise InvalidArgument(
            f"{path}.{missing[0] if len(missing) < 3 else 'check'}",
            "give check: [left, operation, right], or left_template, operation and "
            "right_template (strings)",
        )
    values["check"] = [params[name] for name in split]
    return values
