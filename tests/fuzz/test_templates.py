"""Hypothesis-generated Jinja templates: whatever their loops, filters and arguments, a
rendering ends within its budget (time and size) with a text or a clear error."""

from __future__ import annotations

import resource
import time

from evald.errors import InvalidArgument, ResourceExhausted
from evald.metrics.text.jinja import MAX_RENDERED, MAX_SECONDS, render
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

VARIABLES = {"response": "the cat sat", "reference": "a cat", "item": {"k": ["a", "b"]}}
NUMBERS = st.sampled_from([0, 1, 2, 7, 999, 10_000, 10_001, 100_000, 10**7, 10**9, -(10**9)])
LEAVES = st.one_of(
    st.sampled_from(["response", "reference", "item.k", "'x'", "'%s'", "[1, 2]"]),
    NUMBERS.map(str),
)
FILTERS = st.sampled_from(
    [
        "center({n})", "indent({n})", "replace('a', 'x' * {n})", "join('x' * {n})",
        "format({n})", "truncate({n})", "wordwrap({n})", "batch({n})", "string", "upper",
        "list", "reverse", "sum", "length", "tojson",
    ]
)  # fmt: skip


def expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        LEAVES,
        lambda inner: st.one_of(
            st.tuples(inner, FILTERS, NUMBERS).map(lambda t: f"({t[0]}) | {t[1].format(n=t[2])}"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]}) ~ ({t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]}) * ({t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]}) + ({t[1]})"),
        ),
        max_leaves=6,
    )


def templates() -> st.SearchStrategy[str]:
    body = expressions().map(lambda e: "{{ " + e + " }}")
    return st.recursive(
        body,
        lambda inner: st.one_of(
            st.tuples(NUMBERS, inner).map(
                lambda t: "{% for i in range(" + str(t[0]) + ") %}" + t[1] + "{% endfor %}"
            ),
            st.tuples(inner, inner).map("".join),
            inner.map(
                lambda b: (
                    "{% set ns = namespace(s='ab') %}{% for i in range(64) %}"
                    "{% set ns.s = ns.s ~ ns.s %}" + b + "{% endfor %}"
                )
            ),
        ),
        max_leaves=4,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates())
def test_any_template_ends_within_its_budget(template: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.monotonic()
    text = ""
    try:
        text = render(template, VARIABLES, "t")
    except (InvalidArgument, ResourceExhausted) as exc:
        message = str(exc)
    else:
        message = "t: rendered"
    assert message.startswith("t")  # the field is named
    assert len(text) <= MAX_RENDERED
    assert time.monotonic() - began < MAX_SECONDS + 2  # one slow C call past the last check
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 512 * 1024
