"""The shared machinery of judge-backed metrics: autorater config, sampling, flipping.

A pointwise metric builds one prompt; a pairwise metric builds the prompt for the normal order
and, when ``flip_enabled``, for the swapped order. Samples run concurrently (each still bounded
by the judge's concurrency limit), each with its own cache entry (its index is in the key).

An unset ``sampling_count`` or ``flip_enabled`` takes the server's default (the judge config's
``sampling_count`` / ``flip_enabled``: 4 and true, as Vertex AI documents).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from evald import judges
from evald.call import Call
from evald.errors import InvalidArgument
from evald.judges import GenerationParams, JudgeRequest, Media
from evald.judges.config import MAX_SAMPLES, SamplingDefaults
from evald.judging import verdicts
from evald.judging.verdicts import Choice, Scale, Score

T = TypeVar("T")
CONFIG = "autorater_config"
FLIPPED_MARK = "[flipped: Response A is the candidate, Response B the baseline]\n"
"""First line of the raw output of a flipped pairwise sample, so a parser can map it back."""


@dataclass(frozen=True)
class Sampling:
    """What the request's ``autorater_config`` asks for, server defaults filled in."""

    model: str = ""
    count: int = 1
    flip: bool = False
    flip_requested: bool = False
    """``flip_enabled`` was set to true by the caller (not only by default)."""
    params: GenerationParams = field(default_factory=GenerationParams)


def sampling(config: Any | None, defaults: SamplingDefaults | None = None) -> Sampling:
    """Validate an ``AutoraterConfig`` message (None = unset) into :class:`Sampling`; unset
    fields take ``defaults`` (Vertex's when None)."""
    defaults = defaults or SamplingDefaults()
    if config is None:
        return Sampling(count=defaults.count, flip=defaults.flip)
    count = config.sampling_count if config.HasField("sampling_count") else defaults.count
    if not 1 <= count <= MAX_SAMPLES:
        raise InvalidArgument(
            f"{CONFIG}.sampling_count", f"must be within 1..{MAX_SAMPLES}, got {count}"
        )
    requested = config.HasField("flip_enabled")
    return Sampling(
        model=config.autorater_model,
        count=count,
        flip=config.flip_enabled if requested else defaults.flip,
        flip_requested=requested and config.flip_enabled,
        params=generation_params(config.generation_config)
        if config.HasField("generation_config")
        else GenerationParams(),
    )


def plan(
    call: Call, config: Any | None = None, defaults: SamplingDefaults | None = None
) -> Sampling:
    """The sampling of a judge call of ``call`` (``config`` overrides the request's
    ``autorater_config``), with the server's defaults (or a metric's own ``defaults``)."""
    chosen = config if config is not None else call.autorater_config
    return sampling(chosen, defaults or call.judges.sampling_defaults())


def shown(media: Sequence[Media], prompt: str) -> tuple[Media, ...]:
    """The media ``prompt`` refers to by label (each once, in order)."""
    return tuple(m for m in dict.fromkeys(media) if m.label and m.label in prompt)


def generation_params(gc: Any) -> GenerationParams:
    """The judge sampling parameters of a ``GenerationConfig`` (others are ignored)."""
    path = f"{CONFIG}.generation_config"
    if gc.HasField("candidate_count") and gc.candidate_count not in (0, 1):
        raise InvalidArgument(
            f"{path}.candidate_count", "must be 1; ask for more samples with sampling_count"
        )

    def opt(name: str) -> Any:
        return getattr(gc, name) if gc.HasField(name) else None

    return GenerationParams(
        temperature=opt("temperature"),
        top_p=opt("top_p"),
        top_k=opt("top_k"),
        max_output_tokens=opt("max_output_tokens"),
        seed=opt("seed"),
        presence_penalty=opt("presence_penalty"),
        frequency_penalty=opt("frequency_penalty"),
        stop_sequences=tuple(gc.stop_sequences),
    )


async def all_or_nothing(tasks: Sequence[Awaitable[T]]) -> list[T]:
    """Await every task; on the first failure cancel the rest and raise it."""
    if len(tasks) == 1:  # one sample (the common case): no task to schedule and gather
        return [await tasks[0]]
    futures = [asyncio.ensure_future(t) for t in tasks]
    try:
        return list(await asyncio.gather(*futures))
    except BaseException:
        for future in futures:
            future.cancel()
        await asyncio.gather(*futures, return_exceptions=True)
        raise


@dataclass(frozen=True)
class PointwiseOutcome:
    """The combined verdict of all samples."""

    score: float | None
    explanation: str
    confidence: float | None
    raw: list[str]


@dataclass(frozen=True)
class PairwiseOutcome:
    """The combined pairwise verdict: ``BASELINE``, ``CANDIDATE`` or ``TIE``."""

    choice: str | None
    explanation: str
    confidence: float | None
    raw: list[str]


async def pointwise(
    call: Call,
    prompt: str,
    system: str | None,
    scale: Scale,
    *,
    strict: bool = True,
    media: Sequence[Media] = (),
    defaults: SamplingDefaults | None = None,
) -> PointwiseOutcome:
    """Ask for ``sampling_count`` scores of ``prompt`` and combine them.

    ``strict=False`` (raw output asked for) sends no response schema and keeps answers with no
    readable score: the caller then gets raw outputs, and a score only if some sample had one.
    ``media`` are the parts the prompt refers to by label; ``defaults`` replaces the server's
    sampling defaults for a metric whose own definition fixes them.
    """
    chosen = plan(call, defaults=defaults)
    request = JudgeRequest(
        prompt, system, scale.schema() if strict else None, chosen.params, shown(media, prompt)
    )

    def read(text: str) -> Score | None:
        if strict:
            return verdicts.read_score(text, scale)
        try:
            return verdicts.read_score(text, scale)
        except judges.OutputError:
            return None

    async with call.judges.session(call) as session:
        target = session.runtime.resolve(chosen.model)
        answers = await all_or_nothing(
            [session.ask(target, request, i, read) for i in range(chosen.count)]
        )
    scores = [a.value for a in answers if a.value is not None]
    raw = [a.text for a in answers]
    if not scores:
        return PointwiseOutcome(None, "", None, raw)
    values = [s.value for s in scores]
    if scale.discrete:
        final, agreement = verdicts.median_score(values)
        confidence = agreement * len(scores) / len(answers)
    else:
        final = verdicts.mean_score(values)
        confidence = sum(v == final for v in values) / len(answers)
    closest = min(scores, key=lambda s: abs(s.value - final))
    return PointwiseOutcome(final, closest.explanation, confidence, raw)


LetterMap = dict[str, str]
NORMAL: LetterMap = {"A": "BASELINE", "B": "CANDIDATE", "SAME": "TIE"}
FLIPPED: LetterMap = {"A": "CANDIDATE", "B": "BASELINE", "SAME": "TIE"}


async def pairwise(
    call: Call,
    render: Callable[[bool], str],
    system: str | None,
    *,
    strict: bool = True,
    media: Sequence[Media] = (),
    flip: bool | None = None,
) -> PairwiseOutcome:
    """Ask for ``sampling_count`` A/SAME/B choices and combine them.

    ``render(flipped)`` is the prompt with Response A = baseline, B = candidate (or swapped when
    ``flipped``). With ``flip_enabled`` the odd-numbered samples (1, 3, ...) are flipped and their
    answers mapped back. ``choice`` is None only when ``strict`` is off and no answer was readable;
    raw outputs of flipped samples start with :data:`FLIPPED_MARK`. ``flip`` (when not None)
    overrides whether samples are flipped (a caller that cannot swap the responses).
    """
    chosen = plan(call)
    flipping = chosen.flip if flip is None else flip
    schema = verdicts.PAIRWISE_SCHEMA if strict else None
    prompts = {flipped: render(flipped) for flipped in ({False, True} if flipping else {False})}

    def read(text: str) -> Choice | None:
        if strict:
            return verdicts.read_choice(text)
        try:
            return verdicts.read_choice(text)
        except judges.OutputError:
            return None

    flips = [flipping and i % 2 == 1 for i in range(chosen.count)]
    async with call.judges.session(call) as session:
        target = session.runtime.resolve(chosen.model)
        answers = await all_or_nothing(
            [
                session.ask(
                    target,
                    JudgeRequest(
                        prompts[f], system, schema, chosen.params, shown(media, prompts[f])
                    ),
                    i,
                    read,
                )
                for i, f in enumerate(flips)
            ]
        )
    raw = [FLIPPED_MARK + a.text if f else a.text for a, f in zip(answers, flips, strict=True)]
    mapped = [
        ((FLIPPED if f else NORMAL)[a.value.letter], a.value.explanation)
        for a, f in zip(answers, flips, strict=True)
        if a.value is not None
    ]
    if not mapped:
        return PairwiseOutcome(None, "", None, raw)
    final = verdicts.majority_choice([c for c, _ in mapped])
    agreeing = [e for c, e in mapped if c == final]
    explanation = (
        agreeing[0]
        if agreeing
        else (
            "the samples were split evenly between baseline and candidate: "
            + "; ".join(f"{c}: {e}" for c, e in mapped)
        )
    )
    # A tie by an even split: the share behind each leading choice (as for a pointwise split).
    top = max(Counter(c for c, _ in mapped).values())
    support = len(agreeing) if agreeing and final != "TIE" else max(len(agreeing), top)
    return PairwiseOutcome(final, explanation, support / len(answers), raw)
