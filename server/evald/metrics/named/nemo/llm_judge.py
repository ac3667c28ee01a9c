"""NeMo ``llm-judge``: a judge answers a Jinja2 prompt; a regex reads the score from the text."""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from evald import offload
from evald.call import Call
from evald.errors import DeadlineExceeded, InvalidArgument
from evald.judges.config import SamplingDefaults
from evald.judging import engine
from evald.judging.verdicts import OPEN
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView, TemplateRow
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render_off_loop

ONE_CALL = SamplingDefaults(count=1, flip=False)
"""NeMo asks its judge once per row; evald's Vertex-style default of 4 samples does not apply."""
SCORE_TYPES = ("int", "float", "bool")
LEGACY_SCORE = "llm-judge"
"""The score's name when a config gives one top-level ``parser`` and no ``scores``."""
PARSE_SECONDS = 10.0
"""Longest reading the scores from one answer may take."""
DEFAULT_MAX_TOKENS = 1024
"""The judge's ``max_tokens`` when the template sets none (NeMo's default)."""

Ask = Callable[[Any, dict[str, Any], str], Awaitable[str]]
"""``(model, chat request body, field)`` to the judge's answer text: the NeMo API's judge
call (``model``: a configured judge's name, or ``{"api_endpoint": {...}}``)."""


class LlmJudge(Metric):
    """The first group of ``score_regex`` in the judge's answer, as a number."""

    name = "nemo/llm-judge"
    family = "nemo"
    definition = (
        "`prompt_template` (Jinja2 over the instance) is sent to the configured judge (the "
        "request's `autorater_config` applies), with `system_instruction` if given, and no "
        "output schema. The score is the first capture group of the first match of "
        "`score_regex` (Python `re.search`) in the answer, read as a number. One judge call per "
        "row, as NeMo makes; with `autorater_config.sampling_count` set, that many and the mean "
        "over the answers. An answer without a match is an error."
    )
    parameters = (
        Parameter("prompt_template", "string", "Jinja2 template of the judge prompt"),
        Parameter(
            "score_regex", "string", "regex whose first group is the score", r"(\d+(?:\.\d+)?)"
        ),
        Parameter("system_instruction", "string", "system instruction for the judge", ""),
    )
    score_range = "whatever the prompt asks for"
    needs_judge = True

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:

        template = params.values.get("prompt_template")
        if not isinstance(template, str) or not template.strip():
            raise InvalidArgument(params.field("prompt_template"), "a prompt template is required")
        try:
            pattern = re.compile(params.string("score_regex"))
        except re.error as exc:
            raise InvalidArgument(params.field("score_regex"), f"invalid regex: {exc}") from None
        if pattern.groups < 1:
            raise InvalidArgument(params.field("score_regex"), "needs a capture group")
        prompt = await render_off_loop(
            template, instance.variables(), params.field("prompt_template")
        )
        system = params.string("system_instruction") or None
        outcome = await engine.pointwise(
            call, prompt, system, OPEN, strict=False, defaults=ONE_CALL
        )
        # The caller's regex may backtrack for ever on some answer: searched off the loop,
        # where the caller's deadline stops it.
        scores: list[float | None] = await offload.call(_scores, pattern, outcome.raw)
        if not scores or any(s is None for s in scores):
            raise InvalidArgument(
                params.field("score_regex"), "no score found in the judge's answer"
            )
        values = [s for s in scores if s is not None]
        return Outcome(sum(values) / len(values), outcome.raw[0][:2000])

    # NeMo Evaluator's API: a chat template sent to a model given in the config, and any
    # number of named scores read from the answer.

    nemo_type = "llm-judge"

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        allowed = ("model", "template", "scores", "parser")
        unknown = sorted(set(params) - set(allowed))
        if unknown:
            raise InvalidArgument(
                f"{path}.{unknown[0]}", f"unknown parameter; llm-judge takes: {', '.join(allowed)}"
            )
        model = params.get("model")
        if not (isinstance(model, str) and model) and not isinstance(model, Mapping):
            raise InvalidArgument(
                f"{path}.model", "give the judge: {api_endpoint: {url, model_id}} or a judge name"
            )
        if isinstance(model, Mapping) and not isinstance(model.get("api_endpoint"), Mapping):
            raise InvalidArgument(f"{path}.model.api_endpoint", "the judge's endpoint is required")
        template = params.get("template")
        if not isinstance(template, Mapping):
            raise InvalidArgument(
                f"{path}.template", "a chat template {messages: [...]} is required"
            )
        messages = template.get("messages")
        if not isinstance(messages, list) or not messages:
            raise InvalidArgument(f"{path}.template.messages", "give at least one message")
        for i, message in enumerate(messages):
            if not isinstance(message, Mapping) or not isinstance(message.get("content"), str):
                raise InvalidArgument(
                    f"{path}.template.messages[{i}]", "must be {role, content} with text content"
                )
        scores = params.get("scores")
        if scores is None:
            scores = {LEGACY_SCORE: {"type": "float", "parser": params.get("parser")}}
        elif params.get("parser") is not None:
            raise InvalidArgument(f"{path}.parser", "give parsers inside scores, not beside them")
        if not isinstance(scores, Mapping) or not scores:
            raise InvalidArgument(f"{path}.scores", "name at least one score")
        checked = {}
        for name, spec in scores.items():
            where = f"{path}.scores.{name}" if name != LEGACY_SCORE else path
            checked[str(name)] = _score_spec(spec, where)
        return {"model": model, "template": dict(template), "scores": checked}

    async def nemo_judge(
        self, params: Mapping[str, Any], row: TemplateRow, path: str, ask: Ask
    ) -> dict[str, float]:
        """One row's scores: the rendered template sent through ``ask``, each score read from
        the answer (NaN when its parser finds nothing, as NeMo counts it)."""
        variables = row.variables()
        body = dict(params["template"])
        rendered = []
        for i, message in enumerate(body["messages"]):
            field = f"{path}.template.messages[{i}].content"
            content = await render_off_loop(message["content"], variables, field)
            rendered.append({**message, "content": content})
        body["messages"] = rendered
        body.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        answer = await ask(params["model"], body, f"{path}.model")
        # The caller's regexes may backtrack for ever on some answer: off the loop, on a
        # budget (a job's row has no caller's deadline to stop it).
        try:
            found: dict[str, float] = await asyncio.wait_for(
                offload.call(parse_scores, params["scores"], answer), PARSE_SECONDS
            )
        except TimeoutError:
            raise DeadlineExceeded(
                f"{path}.scores: reading the scores from the judge's answer took more than "
                f"{PARSE_SECONDS:g} s (a regex that backtracks?)"
            ) from None
        return found


def _score_spec(spec: Any, path: str) -> dict[str, Any]:
    """A ``scores`` entry checked: ``{type, parser}``."""
    if not isinstance(spec, Mapping):
        raise InvalidArgument(path, "must be {type, parser}")
    kind = spec.get("type", "float")
    if kind not in SCORE_TYPES:
        raise InvalidArgument(f"{path}.type", f"one of {', '.join(SCORE_TYPES)}")
    parser = spec.get("parser")
    if parser is None:
        return {"type": kind, "parser": None}
    if not isinstance(parser, Mapping):
        raise InvalidArgument(
            f"{path}.parser", "must be {type: regex, pattern} or {type: json, json_path}"
        )
    which = parser.get("type")
    if which == "regex":
        pattern = parser.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise InvalidArgument(f"{path}.parser.pattern", "a regular expression is required")
        try:
            groups = re.compile(pattern).groups
        except re.error as exc:
            raise InvalidArgument(f"{path}.parser.pattern", f"invalid regex: {exc}") from None
        if groups < 1:
            raise InvalidArgument(f"{path}.parser.pattern", "needs a capture group (the score)")
        return {"type": kind, "parser": {"type": "regex", "pattern": pattern}}
    if which == "json":
        key = parser.get("json_path")
        if not isinstance(key, str) or not key:
            raise InvalidArgument(f"{path}.parser.json_path", "the answer's key is required")
        return {"type": kind, "parser": {"type": "json", "json_path": key}}
    raise InvalidArgument(f"{path}.parser.type", "regex or json")


def parse_scores(scores: Mapping[str, Any], answer: str) -> dict[str, float]:
    """Each score of ``scores`` read from the judge's ``answer``: the first group of the first
    match of a regex parser (``re.search``), a top-level key of the answer's JSON object for a
    json parser (inside a Markdown code fence too), or the whole answer without a parser; NaN
    when it finds nothing or nothing of the score's type."""
    parsed: Any = None
    found: dict[str, float] = {}
    for name, spec in scores.items():
        parser = spec["parser"]
        value: Any
        if parser is None:
            value = answer.strip()
        elif parser["type"] == "regex":
            match = re.search(parser["pattern"], answer)
            value = match.group(1) if match else None
        else:
            if parsed is None:
                parsed = _json_object(answer)
            value = parsed.get(parser["json_path"]) if isinstance(parsed, dict) else None
        found[name] = _typed(value, spec["type"])
    return found


def _json_object(answer: str) -> Any:
    text = answer.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        return {}


def _typed(value: Any, kind: str) -> float:
    """``value`` as a number of type ``kind`` (int, float or bool), else NaN."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if kind == "bool" and isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "1"):
            return 1.0
        if word in ("false", "no", "0"):
            return 0.0
        return math.nan
    try:
        number = float(value) if isinstance(value, (int, float, str)) else math.nan
    except ValueError:
        return math.nan
    if kind == "int" and not (math.isfinite(number) and number.is_integer()):
        return math.nan
    if kind == "bool" and number not in (0.0, 1.0):
        return math.nan
    return number


def _scores(pattern: re.Pattern[str], answers: list[str]) -> list[float | None]:
    """The score ``pattern``'s first group finds in each answer (None: none)."""
    scores: list[float | None] = []
    for text in answers:
        match = pattern.search(text)
        try:
            scores.append(float(match.group(1)) if match else None)
        except (TypeError, ValueError):
            scores.append(None)
    return scores
