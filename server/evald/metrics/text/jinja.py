"""Jinja2 templates over the instance fields, rendered in a sandboxed environment.

Variables: ``prompt``, ``response``, ``reference`` (text; "" when unset), every ``other_data``
key, ``other_data`` itself, and NeMo's ``item`` (all of these) and ``sample.output_text``
(the response). An undefined variable is an error, not an empty string.
"""

from __future__ import annotations

from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from evald.errors import InvalidArgument

MAX_RENDERED = 1_000_000
"""Longest rendering accepted (a template like ``{{ 'x' * 10**9 }}`` is refused earlier)."""


class _Environment(SandboxedEnvironment):
    """No attribute or call escapes (SandboxedEnvironment), and no huge repetitions."""

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator in ("*", "**") and any(
            isinstance(v, int) and v > 10_000 for v in (left, right)
        ):
            raise TemplateError("arithmetic with numbers above 10000 is not allowed in templates")
        return super().call_binop(context, operator, left, right)


_ENV = _Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
_ENV.intercepted_binops = frozenset({"*", "**"})


def render(template: str, variables: dict[str, Any], field: str) -> str:
    """``template`` rendered with ``variables``; InvalidArgument naming ``field`` if it fails."""
    try:
        text = _ENV.from_string(template).render(variables)
    except TemplateError as exc:
        names = ", ".join(sorted(k for k in variables if k not in ("item", "sample")))
        raise InvalidArgument(
            field, f"template error: {exc} (variables: {names}, item, sample)"
        ) from None
    except (TypeError, ValueError, ArithmeticError, RecursionError) as exc:
        raise InvalidArgument(field, f"template error: {type(exc).__name__}: {exc}") from None
    if len(text) > MAX_RENDERED:
        raise InvalidArgument(field, f"template renders to more than {MAX_RENDERED} characters")
    return text
