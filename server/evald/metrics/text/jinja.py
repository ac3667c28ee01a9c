"""Jinja2 templates over the instance fields, rendered in a sandboxed environment, on a budget.

Variables: ``prompt``, ``response``, ``reference`` (text; "" when unset), every ``other_data``
key, ``other_data`` itself, and NeMo's ``item`` (all of these) and ``sample.output_text``
(the response). An undefined variable is an error, not an empty string.

A template cannot escape the sandbox (no attribute or call escapes), and its cost is bounded:

- every string it builds (a concatenation, ``+``, a filter's result) is at most
  :data:`MAX_RENDERED` characters, checked before the string is built where its size is known
  in advance (``center(300000000)`` is refused, not attempted); numbers multiplying a string or
  list are at most 10,000; ``lipsum`` and ``random`` are not available;
- a template with loops, macros, calls or filters beyond a small set whose cost is linear in
  their input (see :func:`inline_safe`) renders on a budget of :data:`MAX_STEPS` executed
  template lines and :data:`MAX_SECONDS` of time. Metrics render such templates off the event
  loop (:mod:`evald.offload`), where the caller's deadline stops them.

Over budget, rendering fails with RESOURCE_EXHAUSTED naming the template's field.
"""

from __future__ import annotations

import functools
import re
import sys
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any

from jinja2 import Environment, StrictUndefined, TemplateError, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

from evald import offload
from evald.errors import InvalidArgument, ResourceExhausted

MAX_RENDERED = 1_000_000
"""Longest string a template may build, and longest rendering accepted (characters)."""
MAX_FACTOR = 10_000
"""Largest number a string or list may be multiplied by."""
MAX_STEPS = 1_000_000
"""Most template lines one rendering may execute (a line of a loop body counts each time)."""
MAX_SECONDS = 1.0
"""Longest one rendering may take."""

INLINE_FILTERS = frozenset(
    {
        "abs", "capitalize", "d", "default", "e", "escape", "first", "float", "int", "last",
        "length", "lower", "round", "string", "title", "tojson", "trim", "upper", "wordcount",
    }
)  # fmt: skip
"""Filters whose cost is linear in their input and whose result is no longer than it."""
_TEMPLATE_FILE = "<template>"


_TOO_LONG = f"template renders to more than {MAX_RENDERED} characters"


class _TooLong(Exception):
    """A rendering passed :data:`MAX_RENDERED` characters."""


class _Budget(Exception):
    """A rendering went over its step or time budget."""


class _Generator(CodeGenerator):
    """Compiles ``a ~ b`` through the environment, so the size of the result is checked."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.checked_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class _Environment(SandboxedEnvironment):
    """No attribute or call escapes (SandboxedEnvironment), and no huge strings or lists."""

    code_generator_class = _Generator
    intercepted_binops = frozenset({"*", "**", "+"})

    @staticmethod
    def concat(pieces: Iterable[str]) -> str:
        """The rendering's pieces joined, stopped as soon as they pass :data:`MAX_RENDERED`
        characters: a loop printing big pieces never holds more than that."""
        kept: list[str] = []
        size = 0
        for piece in pieces:
            size += len(piece)
            if size > MAX_RENDERED:
                raise _TooLong
            kept.append(piece)
        return "".join(kept)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        # Plain expressions, not any()/all() over generators: a generator left unfinished is
        # closed later, and the render budget's trace function may raise in that close, where
        # nothing can catch it.
        if operator in ("*", "**") and (_too_big(left) or _too_big(right)):
            raise TemplateError(
                f"arithmetic with numbers above {MAX_FACTOR} is not allowed in templates"
            )
        if operator == "*":  # a repeated string or list: its size, before it is built
            for sized, times in ((left, right), (right, left)):
                if hasattr(sized, "__len__") and isinstance(times, int):
                    _check_size(len(sized) * max(times, 0))
        if operator == "+" and hasattr(left, "__len__") and hasattr(right, "__len__"):
            _check_size(len(left) + len(right))
        return super().call_binop(context, operator, left, right)

    @staticmethod
    def checked_concat(parts: Iterable[Any]) -> str:
        texts = [str(part) for part in parts]
        _check_size(sum(map(len, texts)))
        return "".join(texts)


def _too_big(value: Any) -> bool:
    return isinstance(value, int) and abs(value) > MAX_FACTOR


def _check_size(size: int) -> None:
    if size > MAX_RENDERED:
        raise TemplateError(
            f"a template may not build strings or lists over {MAX_RENDERED} characters or items"
        )


def _checked_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)  # keeps Jinja's pass_context / pass_eval_context marks
    def checked(*args: Any, **kwargs: Any) -> Any:
        data = list(args[1:] if args and isinstance(args[0], _CONTEXTS) else args)
        for value in (*data, *kwargs.values()):
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and abs(value) > MAX_RENDERED:
                raise TemplateError(f"{name}: {value} is too large an argument")
        if name in _SIZE_BEFORE and data:
            _check_size(_SIZE_BEFORE[name](data, kwargs))
        result = function(*args, **kwargs)
        if isinstance(result, str):
            _check_size(len(result))
        return result

    return checked


_CONTEXTS = (EvalContext, Context, Environment)
"""What Jinja passes to a filter before its value (``pass_eval_context`` and kin)."""
_FORMAT_NUMBER = re.compile(r"%[-#0 +]*(\d+)?(?:\.(\d+))?")


def _replace_size(data: list[Any], kwargs: dict[str, Any]) -> int:
    given = [*data, kwargs.get("old", ""), kwargs.get("new", "")]
    value, old, new = (str(v) for v in given[:3])
    return len(value) + (len(value) + 1) * max(0, len(new) - len(old))


def _join_size(data: list[Any], kwargs: dict[str, Any]) -> int:
    items = list(data[0]) if isinstance(data[0], list | tuple | str | dict) else []
    separator = str(data[1] if len(data) > 1 else kwargs.get("d", ""))
    return sum(len(str(item)) for item in items) + len(items) * len(separator)


def _indent_size(data: list[Any], kwargs: dict[str, Any]) -> int:
    text = str(data[0])
    width = data[1] if len(data) > 1 else kwargs.get("width", 4)
    step = len(width) if isinstance(width, str) else int(width)
    return len(text) + (text.count("\n") + 1) * step


def _format_size(data: list[Any], kwargs: dict[str, Any]) -> int:
    text = str(data[0])
    widths = [int(n) for match in _FORMAT_NUMBER.finditer(text) for n in match.groups() if n]
    values = [*data[1:], *kwargs.values()]
    return len(text) + sum(widths) + sum(len(str(v)) for v in values)


_SIZE_BEFORE: dict[str, Callable[[list[Any], dict[str, Any]], int]] = {
    "replace": _replace_size,
    "join": _join_size,
    "indent": _indent_size,
    "format": _format_size,
}
"""Filters whose result may be far longer than their input: its largest size, checked before
it is built."""


_ENV = _Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
_ENV.filters = {
    name: _checked_filter(name, function)
    for name, function in _ENV.filters.items()
    if name != "random"  # nondeterministic scores
}
for _name in ("lipsum",):  # builds text of any size from a number
    del _ENV.globals[_name]


@functools.lru_cache(maxsize=1024)
def _compile(template: str) -> Any:
    return _ENV.from_string(template)


@functools.lru_cache(maxsize=1024)
def inline_safe(template: str) -> bool:
    """Whether ``template`` costs no more than linear time in its variables: no loops, macros,
    calls or blocks, no ``*``/``**``, and only :data:`INLINE_FILTERS`. Such a template renders
    on the event loop; any other is rendered off it (and a template that does not parse is
    reported by :func:`render` wherever it runs)."""
    try:
        tree = _ENV.parse(template)
    except TemplateError:
        return True  # fails at once in render(), with the parse error
    unsafe = (
        nodes.For, nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.Call, nodes.Mul,
        nodes.Pow, nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends, nodes.Block,
    )  # fmt: skip
    if any(True for _ in tree.find_all(unsafe)):
        return False
    return all(f.name in INLINE_FILTERS for f in tree.find_all(nodes.Filter))


def render(template: str, variables: dict[str, Any], field: str) -> str:
    """``template`` rendered with ``variables``; InvalidArgument naming ``field`` if it fails,
    ResourceExhausted if it goes over its budget."""
    try:
        compiled: Any = _compile(template)
        if inline_safe(template):
            text: str = compiled.render(variables)
        else:
            text = _budgeted(lambda: compiled.render(variables))
    except _Budget as exc:
        raise ResourceExhausted(f"{field}: the template {exc}") from None
    except _TooLong:
        raise InvalidArgument(field, _TOO_LONG) from None
    except TemplateError as exc:
        names = ", ".join(sorted(k for k in variables if k not in ("item", "sample")))
        raise InvalidArgument(
            field, f"template error: {exc} (variables: {names}, item, sample)"
        ) from None
    except Exception as exc:  # the caller's template code failed (TypeError, assert, ...)
        raise InvalidArgument(field, f"template error: {type(exc).__name__}: {exc}") from None
    if len(text) > MAX_RENDERED:
        raise InvalidArgument(field, _TOO_LONG)
    return text


def _budgeted(render_: Callable[[], str]) -> str:
    """``render_()`` stopped after :data:`MAX_STEPS` template lines or :data:`MAX_SECONDS`."""
    deadline = time.monotonic() + MAX_SECONDS
    steps = 0

    def on_line(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal steps
        steps += 1
        if steps > MAX_STEPS:
            raise _Budget(f"ran more than {MAX_STEPS} steps (a loop too long?)")
        if steps % 256 == 0 and time.monotonic() > deadline:
            raise _Budget(f"took more than {MAX_SECONDS:g} s to render")
        return on_line

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        # Only the template's own code is traced line by line; each other call (a filter, a
        # test) still counts once and checks the clock.
        if frame.f_code.co_filename == _TEMPLATE_FILE:
            return on_line
        on_line(frame, event, arg)
        return None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        return render_()
    finally:
        sys.settrace(previous)


async def render_off_loop(template: str, variables: dict[str, Any], field: str) -> str:
    """:func:`render`, off the event loop unless the template is :func:`inline_safe`."""
    if inline_safe(template):
        return render(template, variables, field)
    from_offload: str = await offload.call(render, template, variables, field)
    return from_offload
