"""Per-row pass/fail checks of eval files (``evald evaluate -c``) and of the pytest plugin.

An assertion is written either as ``{type: NAME, value: V, threshold: T, max: M}`` or in short
form as ``{NAME: V, threshold: T, max: M}``. The types:

    contains / icontains      the response holds the value (icontains: ignoring case)
    equals                    the response is the value (both stripped of surrounding space)
    starts-with               the response (stripped of leading space) begins with the value
    regex                     the value, a Python regular expression, matches in the response
    is-json                   the response is JSON; with a list of keys as the value, a JSON
                              object holding every one of them
    metric                    the value names a metric as ``--metric`` does; its score is
                              at least ``threshold`` and at most ``max`` (give one or both)
    rubric (llm-rubric)       a judge scores how well the response meets the value, a rubric,
                              from 0 to 1; passes at ``threshold`` or above (default 0.5)

``not-`` before a text type (``not-contains``, ``not-regex``, ...) inverts it. String values
may name row fields as ``{{field}}`` (``{{a.b}}`` reaches into an object); the response is
the row's ``response`` (the target's output when the eval file names a target).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TEXT_TYPES = ("contains", "icontains", "equals", "starts-with", "regex", "is-json")
SCORED_TYPES = ("metric", "rubric")
ALIASES = {"llm-rubric": "rubric"}
TYPES = (*TEXT_TYPES, *(f"not-{t}" for t in TEXT_TYPES), *SCORED_TYPES, *ALIASES)
DEFAULT_RUBRIC_THRESHOLD = 0.5
RUBRIC_KEY = "evald_rubric_{}"
"""The row field a rubric travels in to the judge: a template variable, so the rubric's own
text is never read as template syntax."""

_FIELD = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}")
_KEYS = ("threshold", "max")


class SpecError(Exception):
    """An assertion (or eval file) the user must fix: ``where`` is the path of the offending
    field, e.g. ``tests[3].assert[0].type``."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class TemplateError(Exception):
    """A ``{{field}}`` the row does not have."""


@dataclass(frozen=True)
class Assertion:
    """One check, as written at ``where`` in its file."""

    type: str
    """One of TEXT_TYPES or SCORED_TYPES (aliases resolved, ``not-`` split off)."""
    value: Any
    """A string (with ``{{field}}`` templates) for text types, metric names and rubrics;
    None or a tuple of required keys for ``is-json``."""
    where: str
    negate: bool = False
    threshold: float | None = None
    maximum: float | None = None

    @property
    def name(self) -> str:
        """The type as written: ``not-contains``, ``metric``, ..."""
        return f"not-{self.type}" if self.negate else self.type

    @property
    def label(self) -> str:
        """A short description, for summaries: ``icontains "{{reference}}"``, ``bleu >= 0.3``."""
        if self.type == "metric":
            bounds = []
            if self.threshold is not None:
                bounds.append(f">= {self.threshold:g}")
            if self.maximum is not None:
                bounds.append(f"<= {self.maximum:g}")
            return f"{self.value} {' and '.join(bounds)}"
        if self.type == "is-json":
            return self.name + (f" with keys {', '.join(self.value)}" if self.value else "")
        shown = str(self.value) if len(str(self.value)) <= 40 else str(self.value)[:37] + "..."
        label = f"{self.name} {json.dumps(shown, ensure_ascii=False)}"
        if self.type == "rubric":
            label += f" >= {self.threshold:g}"
        return label


@dataclass(frozen=True)
class Outcome:
    """Whether one assertion passed on one row, and why (or why not)."""

    passed: bool
    reason: str
    score: float | None = None

    def to_json(self, assertion: Assertion) -> dict[str, Any]:
        """The outcome as stored in ``results.jsonl``."""
        return {
            "assertion": assertion.where,
            "type": assertion.name,
            "passed": self.passed,
            "reason": self.reason,
            "score": self.score,
        }


def parse(raw: Any, where: str) -> Assertion:
    """An assertion from its written form; SpecError names the offending field."""
    if not isinstance(raw, Mapping):
        raise SpecError(where, "must be a mapping such as {type: contains, value: ...}")
    if "type" in raw:
        kind = raw["type"]
        if not isinstance(kind, str) or kind not in TYPES:
            raise SpecError(f"{where}.type", f"unknown assertion {kind!r}; {_known()}")
        extra = [k for k in raw if k not in ("type", "value", *_KEYS)]
        if extra:
            raise SpecError(f"{where}.{extra[0]}", "unknown key (type, value, threshold, max)")
        value, value_at = raw.get("value"), f"{where}.value"
    else:
        kinds = [k for k in raw if k not in _KEYS]
        if len(kinds) != 1:
            raise SpecError(where, f"name one assertion type ({_known()})")
        kind = kinds[0]
        if not isinstance(kind, str) or kind not in TYPES:
            raise SpecError(f"{where}.{kind}", f"unknown assertion {kind!r}; {_known()}")
        value, value_at = raw[kind], f"{where}.{kind}"
    negate = kind.startswith("not-")
    base = ALIASES.get(kind, kind.removeprefix("not-"))
    threshold = _number(raw, "threshold", where)
    maximum = _number(raw, "max", where)
    if base == "is-json":
        value = _keys(value, value_at)
    elif value is None or isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SpecError(value_at, f"{kind} needs a text value")
    else:
        value = str(value)
    if base == "metric":
        if threshold is None and maximum is None:
            raise SpecError(where, "a metric assertion needs threshold (at least) or max")
    elif base == "rubric":
        if maximum is not None:
            raise SpecError(f"{where}.max", "a rubric passes at threshold or above; no max")
        threshold = DEFAULT_RUBRIC_THRESHOLD if threshold is None else threshold
    elif threshold is not None or maximum is not None:
        raise SpecError(where, f"{kind} takes no threshold or max")
    if base == "regex" and isinstance(value, str) and not _FIELD.search(value):
        try:
            re.compile(value)
        except re.error as exc:
            raise SpecError(value_at, f"not a regular expression: {exc}") from None
    return Assertion(base, value, where, negate, threshold, maximum)


def parse_list(raw: Any, where: str) -> tuple[Assertion, ...]:
    """The assertions of an ``assert:`` list."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(where, "must be a list of assertions")
    return tuple(parse(item, f"{where}[{i}]") for i, item in enumerate(raw))


def _known() -> str:
    return "one of " + ", ".join(TYPES)


def _number(raw: Mapping[str, Any], key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise SpecError(f"{where}.{key}", "must be a number")
    return float(value)


def _keys(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise SpecError(where, "is-json takes a list of required keys (or nothing)")
    return tuple(value)


def render(template: str, row: Mapping[str, Any]) -> str:
    """``template`` with each ``{{field}}`` replaced by the row's value (objects and numbers as
    JSON); TemplateError when the row has no such field."""

    def value(match: re.Match[str]) -> str:
        found: Any = row
        for part in match.group(1).split("."):
            if not isinstance(found, Mapping) or part not in found:
                raise TemplateError(f"the row has no field {match.group(1)!r}")
            found = found[part]
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    return _FIELD.sub(value, template)


def template_fields(template: str) -> list[str]:
    """The ``{{field}}`` names of ``template``."""
    return [m.group(1) for m in _FIELD.finditer(template)]


def response_of(row: Mapping[str, Any]) -> str | None:
    """The response text of a row (an InstanceData object's ``text``), None when it has none."""
    value = row.get("response")
    if value is None:
        return None
    if isinstance(value, Mapping) and isinstance(value.get("text"), str):
        return str(value["text"])
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def check_text(assertion: Assertion, row: Mapping[str, Any]) -> Outcome:
    """The outcome of a text assertion (one of TEXT_TYPES) on ``row``."""
    response = response_of(row)
    if response is None:
        return Outcome(False, "the row has no response")
    try:
        passed, reason = _text(assertion, response, row)
    except TemplateError as exc:
        return Outcome(False, str(exc))
    if assertion.negate:
        passed, reason = not passed, f"not: {reason}"
    return Outcome(passed, reason)


def _text(assertion: Assertion, response: str, row: Mapping[str, Any]) -> tuple[bool, str]:
    kind = assertion.type
    if kind == "is-json":
        try:
            parsed = json.loads(response)
        except ValueError as exc:
            return False, f"the response is not JSON ({exc})"
        keys: Sequence[str] = assertion.value or ()
        if keys and not isinstance(parsed, dict):
            return False, "the response is JSON but not an object"
        missing = [k for k in keys if k not in parsed]
        if missing:
            return False, f"the JSON object lacks {', '.join(missing)}"
        return True, "the response is JSON" + (" with every required key" if keys else "")
    expected = render(assertion.value, row)
    shown = json.dumps(expected, ensure_ascii=False)
    if kind == "contains":
        found = expected in response
        return found, f"{shown} {'found' if found else 'not found'} in the response"
    if kind == "icontains":
        found = expected.casefold() in response.casefold()
        return found, f"{shown} {'found' if found else 'not found'} in the response (any case)"
    if kind == "equals":
        same = response.strip() == expected.strip()
        return same, f"the response {'equals' if same else 'differs from'} {shown}"
    if kind == "starts-with":
        starts = response.lstrip().startswith(expected)
        return starts, f"the response {'starts' if starts else 'does not start'} with {shown}"
    if kind == "regex":
        try:
            match = re.search(expected, response)
        except re.error as exc:
            return False, f"{shown} is not a regular expression ({exc})"
        return match is not None, f"/{expected}/ {'matches' if match else 'does not match'}"
    raise ValueError(f"not a text assertion: {kind}")


def check_scored(assertion: Assertion, result: Mapping[str, Any]) -> Outcome:
    """The outcome of a metric or rubric assertion from its metric's result (a
    ``results.jsonl`` result: ``score``, ``explanation``, ``error``)."""
    error = result.get("error")
    what = assertion.value if assertion.type == "metric" else "the judge"
    if error is not None:
        return Outcome(False, f"{what} failed: {error.get('code')}: {error.get('message')}")
    score = result.get("score")
    if score is None:
        return Outcome(False, f"{what} gave no score (NaN)")
    low, high = assertion.threshold, assertion.maximum
    passed = (low is None or score >= low) and (high is None or score <= high)
    bounds = []
    if low is not None:
        bounds.append(f"{'>=' if score >= low else '<'} {low:g}")
    if high is not None:
        bounds.append(f"{'<=' if score <= high else '>'} {high:g}")
    what = "score" if assertion.type == "metric" else "judge score"
    reason = f"{what} {score:.4g} {' and '.join(bounds)}"
    explanation = result.get("explanation")
    if assertion.type == "rubric" and explanation:
        reason += f": {explanation}"
    return Outcome(passed, reason, float(score))


RUBRIC_TEMPLATE = """You are grading a response against a rubric.

# Rubric
{%s}
%s
# Response
{response}

Score how well the response meets the rubric, from 0 to 1: 1 when it fully meets it, 0 when it
does not meet it at all, a fraction when it partly does. Explain briefly."""


def rubric_metric(index: int, with_prompt: bool) -> Any:
    """The pointwise judge metric of a row's ``index``-th rubric: the rubric is read from the
    row field ``RUBRIC_KEY.format(index)``, the prompt shown when the row has one."""
    from evald import api

    prompt = "\n# Prompt\n{prompt}\n" if with_prompt else ""
    metric = api.messages.Metric()
    spec = metric.pointwise_metric_spec
    spec.metric_prompt_template = RUBRIC_TEMPLATE % (RUBRIC_KEY.format(index), prompt)
    return metric


async def check_row(
    evaluate: Any,
    index: int,
    row: Mapping[str, Any],
    assertions: Sequence[Assertion],
    metrics: Sequence[tuple[str, Any]],
    autorater_config: Any = None,
) -> tuple[dict[str, Any], list[Outcome]]:
    """Score ``row`` with ``metrics`` (``--metric`` text and its parsed ``Choice``) and the
    judge metric of each rubric assertion, then check every assertion. Returns the row's
    result record (``results`` holds the ``metrics``' results only) and the outcomes.

    ``evaluate`` answers an ``EvaluateInstancesRequest`` (see :func:`evald.jobs.rows.score_row`);
    it is not called when there is nothing to score. A metric assertion's metric must be one of
    ``metrics``."""
    from evald.jobs import rows

    texts = [text for text, _ in metrics]
    scored = dict(row)
    judged: list[Any] = []
    rubric_index: dict[int, int] = {}
    failed: dict[int, Outcome] = {}
    for i, assertion in enumerate(assertions):
        if assertion.type != "rubric":
            continue
        try:
            scored[RUBRIC_KEY.format(len(judged))] = render(assertion.value, row)
        except TemplateError as exc:
            failed[i] = Outcome(False, str(exc))
            continue
        rubric_index[i] = len(judged)
        judged.append(rubric_metric(len(judged), row.get("prompt") is not None))
    results: list[dict[str, Any]] = []
    if metrics or judged:
        from evald.cli.evaluate import Choice, score_row

        choices = [choice for _, choice in metrics]
        choices += [Choice(metric, needs_judge=True) for metric in judged]
        labels = rows.metric_labels([choice.metric for _, choice in metrics])
        labels += [f"rubric#{n + 1}" for n in range(len(judged))]
        record = await score_row(evaluate, choices, labels, index, scored, autorater_config)
        results = record["results"]
    record = {"row": index, "input": dict(row), "results": results[: len(metrics)]}
    outcomes = []
    for i, assertion in enumerate(assertions):
        if i in failed:
            outcomes.append(failed[i])
        elif assertion.type == "metric":
            outcomes.append(check_scored(assertion, results[texts.index(assertion.value)]))
        elif assertion.type == "rubric":
            outcomes.append(check_scored(assertion, results[len(metrics) + rubric_index[i]]))
        else:
            outcomes.append(check_text(assertion, row))
    return record, outcomes


def metric_texts(assertions: Sequence[Assertion], first: Sequence[str] = ()) -> list[str]:
    """``first``, then the metric of every metric assertion, each once."""
    return list(dict.fromkeys([*first, *(a.value for a in assertions if a.type == "metric")]))
