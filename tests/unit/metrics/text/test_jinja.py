"""Templates: what renders, what is refused by its size checks, what goes over its budget,
and which templates are simple enough for the event loop."""

from __future__ import annotations

import time

import pytest
from evald.errors import InvalidArgument, ResourceExhausted
from evald.metrics.text.jinja import MAX_RENDERED, inline_safe, render

VARIABLES = {"response": "abc", "reference": "x", "item": {"n": 3}}

RENDERS = [
    ("{{ response }}", "abc"),
    ("{{ response | trim | upper }}", "ABC"),
    ("{{ response ~ '-' ~ reference }}", "abc-x"),
    ("{% for c in response %}{{ c }}.{% endfor %}", "a.b.c."),
    ("{{ response | replace('b', 'BB') }}", "aBBc"),
    ("{{ ['a', 'b'] | join(', ') }}", "a, b"),
    ("{{ '%s=%d' | format('n', 3) }}", "n=3"),
    ("{{ response * 3 }}", "abcabcabc"),
    ("{{ response | center(7) }}", "  abc  "),
    ("{% if response is defined %}yes{% endif %}", "yes"),
]


@pytest.mark.parametrize(("template", "expected"), RENDERS)
def test_renders(template: str, expected: str) -> None:
    assert render(template, VARIABLES, "f") == expected


REFUSED = [
    ('{{ "x" | center(300000000) }}', InvalidArgument, "too large an argument"),
    ("{{ response * 100000 }}", InvalidArgument, "above 10000"),
    ("{{ '%999999999s' | format(1) }}", InvalidArgument, "over 1000000 characters or items"),
    ("{{ (response * 100) | replace('', 'y' * 9999) }}", InvalidArgument, "characters"),
    ("{{ response | truncate(0) }}", InvalidArgument, "AssertionError"),
    (
        "{% set ns = namespace(s='xx') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}",
        InvalidArgument,
        "over 1000000 characters or items",
    ),
    ("{% set s = 'x' * 9999 %}{{ (s ~ s) * 9999 }}", InvalidArgument, "characters"),
    (
        "{% for i in range(20000) %}{% for j in range(5000) %}{% endfor %}{% endfor %}",
        ResourceExhausted,
        "steps",
    ),
    ("{{ ([1, 2] * 9999) * 9999 }}", InvalidArgument, "characters or items"),
    # Big pieces printed in a loop: stopped at the first million characters, not collected.
    (
        "{% for i in range(10000) %}{{ response | center(100000) }}{% endfor %}",
        InvalidArgument,
        "renders to more than 1000000 characters",
    ),
    ("{{ lipsum(1000) }}", InvalidArgument, "lipsum"),
    ("{{ response | random }}", InvalidArgument, "random"),
    ("{{ response.__class__ }}", InvalidArgument, ""),
]


@pytest.mark.parametrize(("template", "error", "words"), REFUSED)
def test_refused(template: str, error: type[Exception], words: str) -> None:
    began = time.monotonic()
    with pytest.raises(error) as caught:
        render(template, VARIABLES, "metrics[0].check[0]")
    assert time.monotonic() - began < 5  # refused, not attempted
    assert str(caught.value).startswith("metrics[0].check[0]")
    assert words in str(caught.value)


def test_over_time_is_resource_exhausted(monkeypatch: pytest.MonkeyPatch) -> None:
    from evald.metrics.text import jinja

    monkeypatch.setattr(jinja, "MAX_SECONDS", 0.05)
    template = "{% for i in range(99999) %}{{ i | string | length }}{% endfor %}"
    with pytest.raises(ResourceExhausted, match=r"took more than 0\.05 s"):
        render(template, VARIABLES, "f")


INLINE = [
    ("{{ response }}", True),
    ("{{ response | trim | lower }} and {{ reference | default('') }}", True),
    ("{% if response == reference %}1{% else %}0{% endif %}", True),
    ("{% for c in response %}{% endfor %}", False),
    ("{{ range(3) }}", False),
    ("{{ response * 2 }}", False),
    ("{{ response | replace('a', 'b') }}", False),
    ("{% macro m() %}{% endmacro %}", False),
    ("{{ unclosed", True),  # refused at once by render, wherever it runs
]


@pytest.mark.parametrize(("template", "safe"), INLINE)
def test_inline_safe(template: str, safe: bool) -> None:
    assert inline_safe(template) is safe


def test_rendering_longer_than_the_limit_is_refused() -> None:
    long = {"response": "y" * (MAX_RENDERED // 2 + 1)}
    with pytest.raises(InvalidArgument, match="characters"):
        render("{{ response }}{{ response }}", long, "f")
