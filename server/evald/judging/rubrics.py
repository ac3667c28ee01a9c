"""Rubric-based judging: the judge writes rubrics for a prompt, then gives a verdict on each.

Two judge calls per instance (the first is skipped when the caller supplies the rubrics):

1. **Generation** (one sample): the judge turns the prompt (and context, guidelines) into a list
   of rubrics, each one verifiable yes/no check of a response with a type and an importance, as
   JSON ``{"rubrics": [{"description": ..., "type": ..., "importance": "HIGH"}]}``.
2. **Critique** (``sampling_count`` samples): the judge answers every rubric for the response as
   JSON ``{"verdicts": [{"rubric_id": "1", "reasoning": ..., "verdict": "yes" | "no"}]}``.

Rules (documented in docs/metrics/judged.md):

- With several samples (4 when ``sampling_count`` is unset), a rubric is met when more than
  half of the samples say so; its reasoning is the first agreeing sample's. An even split
  counts as half met: the rubric adds half its weight to the score and is reported as not met.
- Score = sum of the weights of the met rubrics / sum of all weights, in 0..1. The weight comes
  from ``Rubric.importance``: HIGH 3, MEDIUM 2, LOW 1, unset or UNSPECIFIED 2. Generated rubrics
  carry the importance the judge gave them (read case-insensitively; anything else leaves it
  unset); rubrics without importance count as MEDIUM, so a list without any is scored as the
  share met.
- A generated rubric's ``type`` is one of ``rubric_type_ontology`` when one is given (anything
  else is unreadable), otherwise the judge's own short label (kept as given, unset if none).
- An answer that misses a rubric, names an unknown one, or is not JSON is unreadable: retried,
  then the metric fails with UNAVAILABLE (never a made-up score).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from evald_proto.aiplatform.v1beta1 import evaluation_rubric_pb2 as rubric_pb2

from evald import api
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judges import JudgeRequest, Media
from evald.judges.output import OutputError, json_object, lookup
from evald.judging import engine

MIN_RUBRICS = 1
MAX_RUBRICS = 30
"""Bounds on a generated rubric list; outside them the answer is unreadable (retried)."""

WEIGHTS = {"HIGH": 3.0, "MEDIUM": 2.0, "LOW": 1.0}
DEFAULT_WEIGHT = 2.0
"""Weight of a rubric whose importance is unset or IMPORTANCE_UNSPECIFIED."""
IMPORTANCES = tuple(WEIGHTS)
"""The ``Rubric.Importance`` names a generated rubric may carry."""
MAX_TYPE_CHARS = 100
"""A generated rubric's free-form type longer than this is cut (a type is a short label)."""

QUESTION, PROPERTY, PYTHON = "NL_QUESTION_ANSWER", "PROPERTY", "PYTHON_CODE_ASSERTION"
CONTENT_STYLES = {
    QUESTION: "Write each rubric as a yes/no question about the response, phrased so that "
    '"yes" means the response is good (e.g. "Does the response list exactly three cities?").',
    PROPERTY: "Write each rubric as a statement of one property a good response has "
    '(e.g. "The response lists exactly three cities.").',
    PYTHON: "Write each rubric as one Python boolean expression over the variable `response` "
    "(the response text, a str) that is True for a good response (e.g. "
    "`len(response.split()) <= 50`). Only checks that can be decided from the text itself.",
}
"""How rubrics are phrased, by ``RubricGenerationSpec.RubricContentType`` (default: questions).
Python assertions are judged by the judge reading them; evald does not execute them."""

HEADER = (
    "You are a meticulous evaluator of AI-generated responses. Follow the instructions exactly "
    "and answer only in the requested format.\n"
)


@dataclass(frozen=True)
class Section:
    """One labelled input shown to the judge."""

    label: str
    text: str


@dataclass(frozen=True)
class Verdict:
    """The combined verdict on one rubric."""

    passed: bool
    reasoning: str
    split: bool = False
    """The samples split evenly: half the rubric's weight counts as met."""

    @property
    def credit(self) -> float:
        """The share of the rubric's weight that counts as met."""
        return 0.5 if self.split else float(self.passed)


def render_sections(sections: Sequence[Section]) -> str:
    """``### label`` blocks; the instance text goes in verbatim (never template-expanded)."""
    return "\n".join(f"### {s.label}\n{s.text}\n" for s in sections)


def rubric_text(rubric: Any) -> str:
    """The text of a ``Rubric`` message ('' when it has none)."""
    if rubric.content.WhichOneof("content_type") == "property":
        return str(rubric.content.property.description).strip()
    return ""


def group_rubrics(group: Any, where: str) -> list[Any]:
    """The rubrics of a caller's ``RubricGroup`` found at request field ``where``;
    InvalidArgument when it has none or a rubric has no text."""
    if not group.rubrics:
        raise InvalidArgument(f"{where}.rubrics", "the rubric group has no rubrics")
    for i, rubric in enumerate(group.rubrics):
        if not rubric_text(rubric):
            raise InvalidArgument(
                f"{where}.rubrics[{i}].content.property.description", "a rubric needs a text"
            )
    return list(group.rubrics)


def weight(rubric: Any) -> float:
    """The weight of a ``Rubric`` in the score (see the module rules)."""
    if not rubric.HasField("importance"):
        return DEFAULT_WEIGHT
    return WEIGHTS.get(rubric_pb2.Rubric.Importance.Name(rubric.importance), DEFAULT_WEIGHT)


def score(rubrics: Sequence[Any], verdicts: Sequence[Verdict]) -> float:
    """Weighted share of met rubrics, 0..1 (see the module rules)."""
    total = sum(weight(r) for r in rubrics)
    met = sum(weight(r) * v.credit for r, v in zip(rubrics, verdicts, strict=True))
    return met / total if total else 0.0


# Generation ------------------------------------------------------------------------------------

GENERATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rubrics": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "type": {"type": "string"},
                    "importance": {"type": "string", "enum": list(IMPORTANCES)},
                },
                "required": ["description", "type", "importance"],
            },
        }
    },
    "required": ["rubrics"],
}

IMPORTANCE_RULE = (
    "Give each rubric an importance: HIGH when a response that fails it fails the core of the "
    "request (a wrong answer, a missed explicit requirement), MEDIUM when it matters to the "
    "user but is not essential, LOW for refinements and polish."
)
FREE_TYPE_RULE = (
    "Give each rubric a type: a short UPPER_SNAKE_CASE label for the kind of check (for "
    "example FORMAT, LENGTH, CONTENT, FACTUAL_ACCURACY, STYLE, SAFETY)."
)


class Generated(NamedTuple):
    """One rubric as the judge wrote it."""

    description: str
    kind: str | None = None
    """Its ``Rubric.type`` (None: unset)."""
    importance: str | None = None
    """HIGH, MEDIUM or LOW (None: unset)."""


def content_type_name(value: int) -> str:
    """``RubricContentType`` enum number -> name, UNSPECIFIED read as questions."""
    enum = api.messages.RubricGenerationSpec.RubricContentType
    name = enum.Name(value) if value in enum.values() else QUESTION
    return QUESTION if name not in CONTENT_STYLES else name


def format_rules(content_type: str = QUESTION, ontology: Sequence[str] = ()) -> str:
    """The rules and output format every generation prompt ends with."""
    rules = [
        CONTENT_STYLES[content_type],
        "Each rubric checks one thing, can be decided from the inputs and the response alone, "
        "and does not overlap with another rubric.",
        "Cover every explicit requirement first, then the implicit expectations that matter "
        "for this prompt; leave out checks the prompt gives no reason for.",
    ]
    if ontology:
        rules.append("Give each rubric a type, exactly one of: " + ", ".join(ontology) + ".")
        kind = "<one of the types>"
    else:
        rules.append(FREE_TYPE_RULE)
        kind = "<TYPE_LABEL>"
    rules.append(IMPORTANCE_RULE)
    item = (
        f'{{"description": "<the rubric>", "type": "{kind}", '
        '"importance": "HIGH" | "MEDIUM" | "LOW"}'
    )
    listed = "\n".join(f"- {r}" for r in rules)
    return (
        f"# Rubric rules\n{listed}\n\n"
        "# Output\nAnswer with one JSON object and nothing else: "
        f'{{"rubrics": [{item}, ...]}}\n'
    )


def generation_prompt(
    focus: str,
    sections: Sequence[Section],
    *,
    guidelines: Sequence[str] = (),
    content_type: str = QUESTION,
    ontology: Sequence[str] = (),
    count: tuple[int, int] = (3, 10),
) -> str:
    """evald's prompt asking the judge for the rubrics of one task."""
    extra = ""
    if guidelines:
        extra = "\n# Guidelines from the user (write rubrics that check them too)\n" + "\n".join(
            f"- {g}" for g in guidelines
        )
    return (
        f"{HEADER}\n# Task\nWrite the rubrics that a response to the inputs below must "
        f"satisfy: between {count[0]} and {count[1]} rubrics, fewer for simple prompts. Do not "
        "answer the prompt yourself and do not judge any response.\n\n"
        f"# What the rubrics check\n{focus}\n{extra}\n\n"
        f"# Inputs\n{render_sections(sections)}\n"
        f"{format_rules(content_type, ontology)}"
    )


def _items(text: str) -> list[Any]:
    bare = text.strip()
    if bare.startswith("```"):
        bare = bare.strip("`").removeprefix("json").removeprefix("JSON").strip()
    try:  # a bare JSON array of rubrics
        value = json.loads(bare)
    except ValueError:
        value = None
    if isinstance(value, list):
        return value
    obj = json_object(text)
    if obj is None:
        raise OutputError("the answer is not JSON")
    found = lookup(obj, ("rubrics", "rubric_list", "items", "checklist"))
    if not isinstance(found, list):
        raise OutputError("no 'rubrics' list in the answer")
    return found


def read_importance(value: Any) -> str | None:
    """HIGH, MEDIUM or LOW from a judge's importance (any case, ``IMPORTANCE_`` prefix
    allowed); None for anything else."""
    if not isinstance(value, str):
        return None
    token = value.strip().strip(".\"'`*").strip().upper().replace(" ", "_").replace("-", "_")
    token = token.removeprefix("IMPORTANCE_")
    return token if token in WEIGHTS else None


def read_rubrics(text: str, ontology: Sequence[str] = ()) -> list[Generated]:
    """Each rubric of a generation answer; OutputError if unusable."""
    allowed = {t.lower(): t for t in ontology}
    found: list[Generated] = []
    for item in _items(text):
        kind: str | None = None
        importance: str | None = None
        if isinstance(item, str):
            description = item
        elif isinstance(item, dict):
            raw = lookup(item, ("description", "rubric", "question", "text", "content"))
            if not isinstance(raw, str):
                raise OutputError("a rubric has no description")
            description = raw
            raw_kind = lookup(item, ("type", "rubric_type", "category"))
            if isinstance(raw_kind, str) and raw_kind.strip():
                kind = raw_kind.strip()[:MAX_TYPE_CHARS]
            importance = read_importance(lookup(item, ("importance", "priority", "weight")))
        else:
            raise OutputError("a rubric is neither text nor an object")
        description = description.strip()
        if not description:
            continue
        if allowed:
            if kind is None or kind.lower() not in allowed:
                raise OutputError(f"rubric type {kind!r} is not in the ontology")
            kind = allowed[kind.lower()]
        found.append(Generated(description, kind, importance))
    if not MIN_RUBRICS <= len(found) <= MAX_RUBRICS:
        raise OutputError(f"{len(found)} rubrics (expected {MIN_RUBRICS}..{MAX_RUBRICS})")
    return found


def make_rubrics(items: Sequence[Generated]) -> list[Any]:
    """``Rubric`` messages for generated rubrics; ids are 1, 2, ..."""
    rubrics = []
    for i, item in enumerate(items, start=1):
        rubric: Any = rubric_pb2.Rubric(rubric_id=str(i))
        rubric.content.property.description = item.description
        if item.kind is not None:
            rubric.type_ = item.kind
        if item.importance is not None:
            rubric.importance = rubric_pb2.Rubric.Importance.Value(item.importance)
        rubrics.append(rubric)
    return rubrics


async def generate(
    call: Call,
    prompt: str,
    *,
    system: str | None = None,
    config: Any | None = None,
    ontology: Sequence[str] = (),
    media: Sequence[Media] = (),
) -> list[Any]:
    """Ask the judge for rubrics (one sample); ``config`` (an AutoraterConfig) overrides the
    current one for this call (``RubricGenerationSpec.model_config``)."""
    plan = engine.plan(call, config)
    request = JudgeRequest(
        prompt, system, GENERATION_SCHEMA, plan.params, engine.shown(media, prompt)
    )
    async with call.judges.session(call) as session:
        target = session.runtime.resolve(plan.model)
        answer = await session.ask(target, request, 0, lambda t: read_rubrics(t, ontology))
    return make_rubrics(answer.value)


# Critique --------------------------------------------------------------------------------------

CRITIQUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "rubric_id": {"type": "string"},
                    "reasoning": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["yes", "no"]},
                },
                "required": ["rubric_id", "reasoning", "verdict"],
            },
        }
    },
    "required": ["verdicts"],
}

CRITIQUE_OUTPUT = (
    "# Output\nAnswer with one JSON object and nothing else, with one entry per rubric in the "
    'order given: {"verdicts": [{"rubric_id": "<the number in brackets>", "reasoning": '
    '"<one or two sentences>", "verdict": "yes" | "no"}, ...]}\n'
)


def rubric_list(rubrics: Sequence[Any]) -> str:
    """The rubrics as ``[n] text`` lines (n = position from 1, the id the judge answers with)."""
    return "\n".join(f"[{i}] {rubric_text(r)}" for i, r in enumerate(rubrics, start=1))


def critique_prompt(sections: Sequence[Section], rubrics: Sequence[Any], note: str = "") -> str:
    """evald's prompt asking for a verdict on each rubric."""
    guidance = f"\n{note}\n" if note else ""
    return (
        f'{HEADER}\n# Task\nCheck the response against each rubric. A rubric is met ("yes") '
        'only if the response fully satisfies it; partly, arguably or not at all is "no". '
        "Judge every rubric on its own, from the inputs and the response only."
        f"{guidance}\n\n# Inputs\n{render_sections(sections)}\n"
        f"# Rubrics\n{rubric_list(rubrics)}\n\n{CRITIQUE_OUTPUT}"
    )


def custom_critique_prompt(filled_template: str, rubrics: Sequence[Any]) -> str:
    """A caller's (already filled) template, with the rubric list appended if it did not use
    ``{rubrics}``, and evald's output format."""
    listed = rubric_list(rubrics)
    body = (
        filled_template
        if listed in filled_template
        else f"{filled_template}\n\n# Rubrics\n{listed}"
    )
    return f"{body}\n\n{CRITIQUE_OUTPUT}"


_TRUE = {"yes", "true", "pass", "passed", "met", "satisfied", "1", "y"}
_FALSE = {"no", "false", "fail", "failed", "not met", "unmet", "not satisfied", "0", "n"}


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        token = value.strip().strip(".!\"'`*").strip().lower()
        if token in _TRUE:
            return True
        if token in _FALSE:
            return False
    return None


def _rubric_index(raw: Any, count: int) -> int | None:
    token = str(raw).strip().strip("[]#").strip() if raw is not None else ""
    if token.isdigit() and 1 <= int(token) <= count:
        return int(token) - 1
    return None


def read_verdicts(text: str, count: int) -> list[Verdict]:
    """One verdict per rubric (``count`` of them, by position) from a critique answer."""
    obj = json_object(text)
    if obj is None:
        raise OutputError("the answer is not a JSON object")
    items = lookup(obj, ("verdicts", "rubric_verdicts", "results", "rubrics"))
    if not isinstance(items, list):
        raise OutputError("no 'verdicts' list in the answer")
    found: dict[int, Verdict] = {}
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise OutputError("a verdict is not an object")
        raw_id = lookup(item, ("rubric_id", "id", "rubric_number", "index"))
        index = _rubric_index(raw_id, count)
        if index is None:
            if raw_id is not None or len(items) != count:
                raise OutputError(f"verdict for unknown rubric {str(raw_id)[:20]!r}")
            index = position  # no ids at all, one entry per rubric: by position
        flag = _flag(lookup(item, ("verdict", "met", "pass", "passed", "answer", "result")))
        if flag is None:
            raise OutputError(f"verdict for rubric {index + 1} is not yes or no")
        if index in found:
            raise OutputError(f"two verdicts for rubric {index + 1}")
        reasoning = lookup(item, ("reasoning", "explanation", "rationale", "justification"))
        found[index] = Verdict(flag, "" if reasoning is None else str(reasoning))
    missing = [i + 1 for i in range(count) if i not in found]
    if missing:
        raise OutputError(f"no verdict for rubric(s) {', '.join(map(str, missing[:5]))}")
    return [found[i] for i in range(count)]


def combine(samples: Sequence[Sequence[Verdict]]) -> list[Verdict]:
    """Per rubric: met when more than half of the samples say so; an even split is not met
    but earns half the rubric's weight (see the module rules)."""
    combined = []
    for per_rubric in zip(*samples, strict=True):
        yes = sum(v.passed for v in per_rubric)
        passed = yes * 2 > len(per_rubric)
        split = yes * 2 == len(per_rubric)
        reasoning = next(v.reasoning for v in per_rubric if v.passed == passed)
        combined.append(Verdict(passed, reasoning, split))
    return combined


async def critique(
    call: Call,
    prompt: str,
    count: int,
    *,
    system: str | None = None,
    media: Sequence[Media] = (),
) -> list[Verdict]:
    """The combined verdicts on ``count`` rubrics (``sampling_count`` samples of ``prompt``)."""
    plan = engine.plan(call)
    request = JudgeRequest(
        prompt, system, CRITIQUE_SCHEMA, plan.params, engine.shown(media, prompt)
    )
    async with call.judges.session(call) as session:
        target = session.runtime.resolve(plan.model)
        answers = await engine.all_or_nothing(
            [
                session.ask(target, request, i, lambda t: read_verdicts(t, count))
                for i in range(plan.count)
            ]
        )
    return combine([a.value for a in answers])


def explain(rubrics: Sequence[Any], verdicts: Sequence[Verdict]) -> str:
    """A short summary: how many rubrics were met, and the unmet ones with their reasoning."""
    met = sum(v.passed for v in verdicts)
    lines = [f"{met} of {len(rubrics)} rubrics met."]
    for i, (rubric, verdict) in enumerate(zip(rubrics, verdicts, strict=True), start=1):
        if not verdict.passed:
            why = f" ({verdict.reasoning})" if verdict.reasoning else ""
            lines.append(f"Not met: [{i}] {rubric_text(rubric)}{why}")
    return "\n".join(lines)


def verdict_messages(rubrics: Sequence[Any], verdicts: Sequence[Verdict]) -> list[Any]:
    """``RubricVerdict`` messages: the rubric as evaluated, the verdict and its reasoning."""
    out = []
    for rubric, verdict in zip(rubrics, verdicts, strict=True):
        message = rubric_pb2.RubricVerdict(verdict=verdict.passed)
        message.evaluated_rubric.CopyFrom(rubric)
        if verdict.reasoning:
            message.reasoning = verdict.reasoning
        out.append(message)
    return out


@dataclass(frozen=True)
class Judged:
    """The outcome of judging one instance against rubrics."""

    rubrics: list[Any]
    verdicts: list[Verdict]

    @property
    def score(self) -> float:
        """Weighted share of met rubrics."""
        return score(self.rubrics, self.verdicts)

    def explanation(self) -> str:
        """See :func:`explain`."""
        return explain(self.rubrics, self.verdicts)

    def verdict_messages(self) -> list[Any]:
        """See :func:`verdict_messages`."""
        return verdict_messages(self.rubrics, self.verdicts)


@dataclass(frozen=True)
class Recipe:
    """A rubric-based metric: what its generated rubrics check, and how they are judged."""

    title: str
    focus: str
    """What the rubrics check, told to the judge that writes them."""
    note: str = ""
    """Extra guidance for the judge that gives the verdicts."""
    count: tuple[int, int] = (3, 10)
    """How many rubrics to ask for (fewest, most)."""

    def generation_prompt(self, sections: Sequence[Section], guidelines: Sequence[str] = ()) -> str:
        """The prompt that asks for this recipe's rubrics."""
        return generation_prompt(self.focus, sections, guidelines=guidelines, count=self.count)

    async def generate(
        self,
        call: Call,
        sections: Sequence[Section],
        guidelines: Sequence[str] = (),
        *,
        media: Sequence[Media] = (),
    ) -> list[Any]:
        """This recipe's rubrics for the inputs in ``sections`` (``media``: the parts their
        texts refer to by label)."""
        return await generate(call, self.generation_prompt(sections, guidelines), media=media)

    async def judge(
        self,
        call: Call,
        generation: Sequence[Section],
        critique_sections: Sequence[Section],
        guidelines: Sequence[str] = (),
        *,
        media: Sequence[Media] = (),
    ) -> Judged:
        """Generate the rubrics from ``generation``, then judge ``critique_sections`` by them."""
        rubrics = await self.generate(call, generation, guidelines, media=media)
        return await self.judge_rubrics(call, rubrics, critique_sections, media=media)

    async def judge_rubrics(
        self,
        call: Call,
        rubrics: Sequence[Any],
        critique_sections: Sequence[Section],
        *,
        media: Sequence[Media] = (),
    ) -> Judged:
        """Judge ``critique_sections`` by the given rubrics (no generation call)."""
        verdicts = await critique(
            call,
            critique_prompt(critique_sections, rubrics, self.note),
            len(rubrics),
            media=media,
        )
        return Judged(list(rubrics), verdicts)
