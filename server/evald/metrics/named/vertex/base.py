"""What the judge-backed named metrics of the newer Vertex SDKs share (``general_quality_v1``, ...).

Every name in the SDK's ``SUPPORTED_PREDEFINED_METRICS`` is a module of this package, with
evald's own prompts. Three kinds:

- **rubric-based** (:class:`RubricNamed`): the judge gives a verdict on each rubric of the
  instance (:mod:`evald.judging.rubrics`); score = importance-weighted share met, 0..1, and
  ``rubric_verdicts`` lists every rubric with its verdict. The rubrics are the caller's when the
  instance carries them in ``rubric_groups`` (see :meth:`RubricNamed.supplied`: the group named
  by ``metric_spec_parameters.rubric_group_key``, else the metric's own group, else the only
  non-empty group); otherwise the judge writes them first, and
  ``metric_spec_parameters.guidelines`` (a string or a list of strings) adds requirements the
  rubrics must also check.
- **binary** (:class:`BinaryNamed`): one 0/1 verdict (the median over samples).
- **claim-based** (:class:`ClaimsNamed`): the judge labels each sentence of the response against
  a source; score = share of claim-bearing sentences that the source supports.

The SDK's version suffixes (v1, v2, v3) name Google's judge generations; here each version of a
metric uses the same prompts, and the judge is whatever the server's judge config says. The
request's ``autorater_config`` applies when given. Images, audio, video and documents in the
instance reach the judge as media (:mod:`evald.judging.media`). ``gecko_text2image_*`` /
``gecko_text2video_*`` (Google's Gecko recipe) are not implemented: they answer UNIMPLEMENTED.
"""

from __future__ import annotations

import math
import re
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from evald_proto.aiplatform.v1beta1 import evaluation_rubric_pb2 as rubric_pb2

from evald.call import Call
from evald.errors import FieldViolation, InvalidArgument, Unimplemented
from evald.judges import JudgeRequest
from evald.judges.output import OutputError, json_object, lookup
from evald.judging import engine, rubrics, transcript
from evald.judging.rubrics import Recipe, Section
from evald.judging.transcript import FIELD_OF, Sources
from evald.judging.verdicts import BINARY
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params

GUIDELINES = Parameter(
    "guidelines",
    "string list",
    "extra requirements the generated rubrics must also check (a string or a list of strings)",
)
RUBRIC_GROUP_KEY = Parameter(
    "rubric_group_key",
    "string",
    "the key of instance.rubric_groups whose rubrics are judged (default: the metric's own "
    "group, e.g. general_quality_rubrics, else the only non-empty group; none: generated)",
)
VERSION_SUFFIX = re.compile(r"_v\d+$")


LABELS = {
    "prompt": "User prompt",
    "response": "Response",
    "reference": "Reference answer",
    "context": "Context",
    "agent": "Agent trace (agents, their tools, and each turn's events)",
}


CONVERSATION = "Conversation so far (the last user message is the one being answered)"


FINAL_RESPONSE = "Final response of the agent"


def guidelines(params: Params) -> list[str]:
    """``guidelines`` as a list of non-blank strings."""
    value = params.values.get("guidelines")
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidArgument(params.field("guidelines"), "must be a string or a list of strings")
    return [v.strip() for v in value if v.strip()]


class JudgeNamed(Metric):
    """A named metric judged from the instance's prompt, response, reference, context, trace."""

    family = "vertex"
    needs_judge = True
    reads: ClassVar[tuple[str, ...]]
    """Sources shown to the judge when present, in this order (see ``transcript.Sources``)."""
    required: ClassVar[tuple[tuple[str, ...], ...]]
    """Each entry: at least one of these sources must be present."""
    labels: ClassVar[tuple[tuple[str, str], ...]] = ()
    """(source, title) for section titles that differ from :data:`LABELS`."""

    def sections(self, sources: Sources, names: Sequence[str]) -> list[Section]:
        """The present sources among ``names``, labelled, in order."""
        out = []
        for name in names:
            text = sources.get(name)
            if text is not None:
                out.append(Section(dict(self.labels).get(name, LABELS[name]), text))
        return out

    def check(
        self,
        sources: Sources,
        instance: InstanceView,
        groups: Sequence[Sequence[str]],
        fields: Mapping[str, str] | None = None,
    ) -> None:
        """InvalidArgument naming every required source that is missing; ``fields`` names the
        request field of a source when it is not the instance's own (``FIELD_OF``)."""

        def named(source: str) -> str:
            if fields is not None and source in fields:
                return fields[source]
            return f"instance.{FIELD_OF[source]}"

        def located(source: str) -> str:
            if fields is not None and source in fields:
                return fields[source]
            return f"{instance.path}.{FIELD_OF[source]}"

        violations = [
            FieldViolation(
                located(group[0]),
                f"{self.name} needs " + " or ".join(named(g) for g in group) + " (non-empty)",
            )
            for group in groups
            if all(sources.get(g) is None for g in group)
        ]
        if violations:
            raise InvalidArgument.of(violations)

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        sources = transcript.sources(instance.message, instance.path)
        self.check(sources, instance, self.required)
        outcome = await self.judge(params, sources, call)
        outcome.saw_all_parts = True  # media went to the judge; thoughts are not content
        return outcome

    @abstractmethod
    async def judge(self, params: Params, sources: Sources, call: Call) -> Outcome:
        """Ask the judge; the required sources are present."""


class RubricNamed(JudgeNamed):
    """The caller's rubrics (``instance.rubric_groups``), or rubrics generated from the task
    inputs; then a verdict on each for the response."""

    recipe: ClassVar[Recipe]
    generation_reads: ClassVar[tuple[str, ...]]
    """Sources the rubric writer sees (never the response)."""
    parameters = (GUIDELINES, RUBRIC_GROUP_KEY)
    score_range = "0..1 (importance-weighted share of rubrics met)"

    @classmethod
    def group_keys(cls) -> tuple[str, ...]:
        """The ``rubric_groups`` keys that hold this metric's rubrics, by preference: its names
        (``general_quality_v1``, ...), its name without version (``general_quality``) and that
        with ``_rubrics`` (``general_quality_rubrics``, the group name Google's guides use)."""
        # An alias is served by a subclass named after it (the catalog): the MRO has them all.
        declared = [vars(k).get("name") for k in cls.__mro__]
        names = list(dict.fromkeys(n for n in (*declared, *cls.aliases) if isinstance(n, str)))
        bases = list(dict.fromkeys(VERSION_SUFFIX.sub("", n) for n in names))
        return tuple(dict.fromkeys([*names, *bases, *(f"{b}_rubrics" for b in bases)]))

    def supplied(self, params: Params, instance: InstanceView) -> tuple[str, list[Any]] | None:
        """The key and rubrics of the caller's group for this metric; None when the instance
        has no non-empty group (the rubrics are then generated). A group is chosen by
        ``rubric_group_key``, else by :meth:`group_keys`, else as the only non-empty group;
        several groups, none of them this metric's, are INVALID_ARGUMENT (ambiguous)."""
        groups = instance.rubric_groups
        where = f"{instance.path}.rubric_groups"
        if params.values.get("rubric_group_key") is not None:
            key = params.string("rubric_group_key")
            if key not in groups:
                have = ", ".join(repr(k) for k in sorted(groups)) or "none"
                raise InvalidArgument(
                    params.field("rubric_group_key"),
                    f"no rubric group {key!r} in the instance (it has: {have})",
                )
            return key, rubrics.group_rubrics(groups[key], f"{where}[{key!r}]")
        filled = sorted(k for k in groups if len(groups[k].rubrics))
        if not filled:
            return None
        chosen = next((k for k in self.group_keys() if k in filled), None)
        if chosen is None and len(filled) == 1:
            chosen = filled[0]
        if chosen is None:
            raise InvalidArgument(
                where,
                f"{len(filled)} rubric groups ({', '.join(map(repr, filled))}) and none is "
                f"{self.name}'s (keys {', '.join(map(repr, self.group_keys()))}); name the "
                "group to judge with metric_spec_parameters.rubric_group_key",
            )
        return chosen, rubrics.group_rubrics(groups[chosen], f"{where}[{chosen!r}]")

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        sources = transcript.sources(instance.message, instance.path)
        self.check(sources, instance, self.required)
        supplied = self.supplied(params, instance)
        if supplied is None:
            outcome = await self.judge(params, sources, call)
            outcome.saw_all_parts = True
            return outcome
        key, given = supplied
        judged = await self.recipe.judge_rubrics(
            call, given, self.sections(sources, self.reads), media=sources.media
        )
        source = f"{instance.path}.rubric_groups[{key!r}]"
        explanation = f"{judged.explanation()}\nRubrics: {source} (supplied)."
        return Outcome(judged.score, explanation, judged.verdict_messages(), saw_all_parts=True)

    async def judge(self, params: Params, sources: Sources, call: Call) -> Outcome:
        judged = await self.recipe.judge(
            call,
            self.sections(sources, self.generation_reads),
            self.sections(sources, self.reads),
            guidelines(params),
            media=sources.media,
        )
        return Outcome(judged.score, judged.explanation(), judged.verdict_messages())

    async def rubrics_for(
        self,
        params: Params,
        instance: InstanceView,
        call: Call,
        fields: Mapping[str, str] | None = None,
    ) -> list[Any]:
        """Only the generated rubrics (``predefined_rubric_generation_spec``,
        GenerateInstanceRubrics), with the caller's Call; ``fields`` as in :meth:`check`."""
        sources = transcript.sources(instance.message, instance.path)
        needed = [g for g in self.required if not set(g) & {"response"}]
        self.check(sources, instance, needed, fields)
        return await self.recipe.generate(
            call,
            self.sections(sources, self.generation_reads),
            guidelines(params),
            media=sources.media,
        )


class BinaryNamed(JudgeNamed):
    """One 0/1 verdict by a criterion (the median of ``sampling_count`` samples)."""

    title: ClassVar[str]
    criterion: ClassVar[str]
    meanings: ClassVar[tuple[str, str]]
    """What 1 and 0 mean."""
    score_range = "0 or 1"

    def prompt(self, sources: Sources) -> str:
        """The judge prompt for one instance."""
        good, bad = self.meanings
        return (
            f"{rubrics.HEADER}\n# Task\nRate the response for {self.title}.\n\n"
            f"# Criterion: {self.title}\n{self.criterion}\n\n"
            f"# Rating rubric (0 or 1)\n- 1: {good}\n- 0: {bad}\n\n"
            f"# Inputs\n{rubrics.render_sections(self.sections(sources, self.reads))}\n"
            "# Output\nFirst reason briefly about the criterion, then give the rating. Answer "
            'with one JSON object and nothing else: {"explanation": "<your reasoning>", '
            '"score": <0 or 1>}\n'
        )

    async def judge(self, params: Params, sources: Sources, call: Call) -> Outcome:

        outcome = await engine.pointwise(
            call, self.prompt(sources), None, BINARY, media=sources.media
        )
        assert outcome.score is not None  # strict: an unreadable answer raised
        return Outcome(outcome.score, outcome.explanation)


LABEL_NAMES = ("supported", "unsupported", "contradicted", "no_rad")


CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sentences": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sentence": {"type": "string"},
                    "label": {"type": "string", "enum": list(LABEL_NAMES)},
                    "rationale": {"type": "string"},
                },
                "required": ["sentence", "label", "rationale"],
            },
        }
    },
    "required": ["sentences"],
}


@dataclass(frozen=True)
class Labelled:
    """One sentence of the response and the judge's label for it."""

    sentence: str
    label: str
    rationale: str


def read_claims(text: str) -> list[Labelled]:
    """The labelled sentences of a claims answer; OutputError if unusable."""

    obj = json_object(text)
    items = lookup(obj, ("sentences", "claims")) if obj is not None else None
    if not isinstance(items, list) or not items:
        raise OutputError("no 'sentences' list in the answer")
    found = []
    for item in items:
        if not isinstance(item, dict):
            raise OutputError("a sentence entry is not an object")
        sentence = lookup(item, ("sentence", "claim", "text"))
        label = str(lookup(item, ("label", "verdict")) or "").strip().lower().replace(" ", "_")
        if not isinstance(sentence, str) or label not in LABEL_NAMES:
            raise OutputError(f"a sentence has no text or an unknown label {label[:20]!r}")
        rationale = lookup(item, ("rationale", "reasoning", "explanation"))
        found.append(Labelled(sentence, label, "" if rationale is None else str(rationale)))
    return found


def claims_score(labelled: Sequence[Labelled]) -> float:
    """Share of claim-bearing sentences (not ``no_rad``) labelled supported; 1.0 if none."""
    claims = [s for s in labelled if s.label != "no_rad"]
    if not claims:
        return 1.0
    return sum(s.label == "supported" for s in claims) / len(claims)


class ClaimsNamed(JudgeNamed):
    """Each sentence of the response labelled against a source (context, else the prompt)."""

    sources_in_order: ClassVar[tuple[str, ...]]
    """Where the source comes from: the first present of these."""
    task: ClassVar[str]
    score_range = "0..1 (share of claims supported)"

    def prompt(self, sources: Sources) -> str:
        """The labelling prompt for one instance."""
        source = next(n for n in self.sources_in_order if sources.get(n) is not None)
        shown = [Section(f"Source ({LABELS[source].lower()})", sources.get(source) or "")]
        shown += self.sections(sources, [n for n in self.reads if n != source])
        return (
            f"{rubrics.HEADER}\n# Task\n{self.task} Split the response into its sentences, "
            "keeping each sentence's exact wording, and label each one:\n"
            "- supported: everything it claims is stated in, or directly follows from, the "
            "source;\n- unsupported: it makes a factual claim the source does not back;\n"
            "- contradicted: it claims something the source says is false;\n"
            "- no_rad: it makes no claim that needs a source (greetings, questions, opinions, "
            "transitions, restating the request).\nUse only the source, not your own knowledge.\n"
            f"\n# Inputs\n{rubrics.render_sections(shown)}\n"
            "# Output\nAnswer with one JSON object and nothing else: "
            '{"sentences": [{"sentence": "<exact sentence>", "label": "supported" | '
            '"unsupported" | "contradicted" | "no_rad", "rationale": "<why>"}, ...]}\n'
        )

    async def judge(self, params: Params, sources: Sources, call: Call) -> Outcome:

        plan = engine.plan(call)
        prompt = self.prompt(sources)
        request = JudgeRequest(
            prompt, None, CLAIMS_SCHEMA, plan.params, engine.shown(sources.media, prompt)
        )
        async with call.judges.session(call) as session:
            target = session.runtime.resolve(plan.model)
            answers = await engine.all_or_nothing(
                [session.ask(target, request, i, read_claims) for i in range(plan.count)]
            )
        samples = [a.value for a in answers]
        scores = [claims_score(s) for s in samples]
        final = math.fsum(scores) / len(scores)
        shown = min(samples, key=lambda s: abs(claims_score(s) - final))
        return Outcome(final, self.explain(shown), self.verdicts(shown))

    def explain(self, labelled: Sequence[Labelled]) -> str:
        """A summary of the labels."""
        claims = [s for s in labelled if s.label != "no_rad"]
        lines = [
            f"{sum(s.label == 'supported' for s in claims)} of {len(claims)} claims supported."
        ]
        lines += [
            f"{s.label}: {s.sentence} ({s.rationale})" for s in claims if s.label != "supported"
        ]
        return "\n".join(lines)

    @staticmethod
    def verdicts(labelled: Sequence[Labelled]) -> list[Any]:
        """One ``RubricVerdict`` per claim-bearing sentence."""
        out = []
        for i, s in enumerate((s for s in labelled if s.label != "no_rad"), start=1):
            verdict = rubric_pb2.RubricVerdict(verdict=s.label == "supported")
            verdict.evaluated_rubric.rubric_id = str(i)
            verdict.evaluated_rubric.type_ = "grounding"
            verdict.evaluated_rubric.content.property.description = (
                f'The source supports: "{s.sentence}"'
            )
            verdict.reasoning = f"{s.label}: {s.rationale}" if s.rationale else s.label
            out.append(verdict)
        return out


TOOL_USE = (
    "choosing the right tool for each need, calling it with correct and complete arguments "
    "taken from the request (no invented values), not making needless or repeated calls, "
    "using the tools' results correctly, and handling tool errors sensibly"
)


class GeckoUnserved(JudgeNamed):
    """A Gecko metric: Google's Gecko recipe, which evald does not implement."""

    medium: ClassVar[str]
    reads = ()
    required = ()
    score_range = "not served"

    async def judge(self, params: Params, sources: Sources, call: Call) -> Outcome:
        raise Unimplemented(
            f"{self.name} is Google's Gecko recipe for judging the {self.medium} in the "
            "response, which evald does not implement; judge the "
            f"{self.medium} with llm_based_metric_spec (rubrics or a template) and a judge "
            f"whose model reads {self.medium}s"
        )
