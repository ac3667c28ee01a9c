"""What every FMEval model evaluation shares: the model it asks, a row's result, the dataset
scores, the prompt template, and the mean aggregation FMEval applies to every score.

An algorithm is driven in three steps by the job that runs it:

1. ``prepare(rows, config, model, template)`` once, before any row (general semantic robustness
   checks whether the model is deterministic there; classification collects its labels);
2. ``evaluate_row`` for each row, in any order and concurrently, with what ``prepare`` returned;
   an ``EvalError`` it raises fails that row only (the caller records ``None`` for it);
3. ``summarize`` over every (row, result or None) pair.

Aggregation, as FMEval's ``aggregate_evaluation_scores`` does with ``mean``: each dataset score
is the mean of the score over the rows that have it (a row's None, a failed row, is left out, as
Ray's ``mean(ignore_nulls=True)``), and with a ``category`` column, the same mean per category.
evald sums exactly (``math.fsum``) where Ray sums block by block in an order set by its
scheduling, so the last bits of a mean may differ from FMEval's. A score no row has is None
(FMEval fails there). Rows without a category count for the dataset but no category.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any, Final, Protocol, TypeAlias

import numpy as np

from evald.errors import InvalidArgument

DEFAULT_PROMPT_TEMPLATE: Final = "$model_input"
"""FMEval's prompt template for a dataset without one of its own: the input as it is."""

CATEGORY: Final = "category"

BertScore: TypeAlias = Callable[[Sequence[str], Sequence[str]], Awaitable[list[float]]]
"""BERTScore F1 of each (reference, candidate) pair, given as the list of references and the
list of candidates (FMEval's ``target_output`` and ``model_output``), with the model of the
algorithm config's ``model_type_for_bertscore``; an ``EvalError`` fails the row."""


class Model(Protocol):
    """The model under evaluation."""

    async def generate(self, prompt: str) -> str:
        """The model's output text for one prompt; an ``EvalError`` fails the row."""
        ...

    async def log_probability(self, text: str) -> float:
        """The sum of the log-probabilities of ``text``'s tokens; ``FailedPrecondition`` when
        the model cannot give them."""
        ...


@dataclass(frozen=True)
class RowResult:
    """One row's scores, by FMEval's names (None: not available for this row), and what to show
    of the row (prompt, model output, perturbed inputs and outputs, log-probabilities...)."""

    scores: dict[str, float | None]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreSummary:
    """A dataset score: its value (None when no row has it), how many rows it is over, and its
    value per category (empty without categories)."""

    name: str
    value: float | None
    count: int
    categories: dict[str, float | None]


class Algorithm(Protocol):
    """One FMEval evaluation."""

    name: str
    """FMEval's ``EvalAlgorithm`` value."""
    columns: tuple[str, ...]
    """The row keys it needs (``category`` is always optional)."""
    score_names: tuple[str, ...]
    """The per-row scores, in FMEval's order."""
    unavailable: tuple[str, ...]
    """The scores that need a BERTScore model: None (and reported unavailable) when
    ``evaluate_row`` is given no ``bertscore``."""

    def config(self, data: Mapping[str, Any], path: str) -> Any:
        """The algorithm's config from JSON; InvalidArgument naming the field."""
        ...

    async def prepare(
        self,
        rows: Sequence[Mapping[str, Any]],
        config: Any,
        model: Model,
        prompt_template: str,
    ) -> Any:
        """The dataset-level pre-pass; its result is passed to every ``evaluate_row``."""
        ...

    async def evaluate_row(
        self,
        row: Mapping[str, Any],
        index: int,
        config: Any,
        model: Model,
        prompt_template: str,
        context: Any,
        bertscore: BertScore | None = None,
    ) -> RowResult:
        """One row's scores; those in ``unavailable`` only with ``bertscore``."""
        ...

    def summarize(
        self, results: Sequence[tuple[Mapping[str, Any], RowResult | None]]
    ) -> list[ScoreSummary]:
        """The dataset scores, overall and per category."""
        ...


def apply_template(template: str, model_input: str) -> str:
    """The prompt: ``template`` with ``$model_input`` (or ``${model_input}``) replaced by the
    input, by ``string.Template.substitute`` as FMEval's ``PromptComposer`` does; ``$$`` is a
    literal ``$``, and a template without the placeholder is sent as it is.

    FMEval passes the input only when it is not empty, so an empty input fails there with a
    KeyError; evald puts the empty string in. InvalidArgument (field ``prompt_template``) for
    another placeholder or a stray ``$``, which FMEval also refuses.
    """
    try:
        return Template(template).substitute(model_input=model_input)
    except KeyError as exc:
        raise InvalidArgument(
            "prompt_template", f"has the placeholder ${exc.args[0]}; the only one is $model_input"
        ) from None
    except ValueError as exc:
        raise InvalidArgument("prompt_template", f"{exc}; write $$ for a literal $ sign") from None


def text(row: Mapping[str, Any], key: str) -> str:
    """The row's text under ``key``; InvalidArgument naming the key when it is missing or not a
    string (the row fails)."""
    value = row.get(key)
    if not isinstance(value, str):
        raise InvalidArgument(key, "missing" if value is None else f"must be text, not {value!r}")
    return value


async def generate_all(model: Model, prompts: Sequence[str]) -> list[str]:
    """The model's outputs for the prompts, asked concurrently, in the prompts' order. On the
    first failure the others are cancelled (the row fails anyway) and the failure is raised."""
    tasks = [asyncio.ensure_future(model.generate(prompt)) for prompt in prompts]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        # Collect the others so that none of their errors goes unretrieved.
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def mean_f1(values: Sequence[float]) -> float | None:
    """numpy's mean of BERTScores, as FMEval's ``Mean`` takes it; None for none."""
    return finite(float(np.mean(values))) if values else None


def finite(value: float) -> float | None:
    """A score as a row reports it: NaN is "no value" (FMEval's mean would skip it as null)."""
    return None if math.isnan(value) else float(value)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def category_of(row: Mapping[str, Any]) -> str | None:
    value = row.get(CATEGORY)
    return None if value is None else str(value)


def summarize_means(
    names: Sequence[str], results: Sequence[tuple[Mapping[str, Any], RowResult | None]]
) -> list[ScoreSummary]:
    """For each name, the mean of the score over the rows that have it, overall and per
    category (categories in order of first appearance, failed rows' included)."""
    categories: dict[str, None] = {}
    for row, _ in results:
        category = category_of(row)
        if category is not None:
            categories.setdefault(category)
    summaries = []
    for name in names:
        overall: list[float] = []
        by_category: dict[str, list[float]] = {category: [] for category in categories}
        for row, result in results:
            value = None if result is None else result.scores.get(name)
            if value is None:
                continue
            overall.append(value)
            category = category_of(row)
            if category is not None:
                by_category[category].append(value)
        summaries.append(
            ScoreSummary(
                name=name,
                value=_mean(overall),
                count=len(overall),
                categories={category: _mean(values) for category, values in by_category.items()},
            )
        )
    return summaries
