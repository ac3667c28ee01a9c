"""Running one FMEval algorithm over a dataset: checking what was asked, mapping the dataset's
columns, scoring each row and aggregating, shared by ``EvaluateModel`` jobs and
``evald evaluate --algorithm``.

A row's record (one line of ``results.jsonl``) is ``{row, input, scores, details, error}``;
``aggregation.json`` holds the algorithm's dataset scores overall and per category, the scores
not computed for want of a BERTScore model (``unavailable``, with ``notes`` saying why), and the
row counts.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.rpc import code_pb2

from evald.errors import EvalError, FailedPrecondition, InvalidArgument, internal_status
from evald.fmeval.algorithms import ALGORITHMS
from evald.fmeval.algorithms.base import Algorithm, BertScore, Model, RowResult
from evald.metrics.named.fmeval import bertscore as bert
from evald.models.base import ModelRequest, Models
from evald.nemo.plan import endpoint_of
from evald.targets import Endpoint

DEFAULT_TEMPLATE = "$model_input"
COLUMNS = {
    "model_input_location": "model_input",
    "target_output_location": "target_output",
    "category_location": "category",
    "sent_more_input_location": "sent_more_input",
    "sent_less_input_location": "sent_less_input",
    "model_output_location": "model_output",
}
"""FMEval's DataConfig fields and the row keys they fill (each defaults to a column of the same
name as the key)."""
IGNORED_DATA_CONFIG = ("dataset_name", "dataset_uri", "dataset_mime_type")
"""DataConfig fields FMEval needs and evald takes from the request itself."""
ALIASES = {
    "semantic_robustness.general": "general_semantic_robustness",
    "semantic_robustness.qa": "qa_accuracy_semantic_robustness",
    "semantic_robustness.summarization": "summarization_accuracy_semantic_robustness",
    "semantic_robustness.classification": "classification_accuracy_semantic_robustness",
}
"""Shorter names of the semantic robustness variants."""


@dataclass(frozen=True)
class Plan:
    """A checked model evaluation."""

    algorithm: Algorithm
    config: Any
    endpoint: Endpoint | None
    prompt_template: str = DEFAULT_TEMPLATE
    columns: Mapping[str, str] = field(default_factory=dict)
    """Row key to the dataset column (a dotted path) that fills it."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Request fields sent to the model."""


def plan(
    algorithm: str,
    config: Mapping[str, Any] | None,
    target: Mapping[str, Any] | None,
    data_config: Mapping[str, Any] | None = None,
    prompt_template: str = "",
    params: Mapping[str, Any] | None = None,
) -> Plan:
    """The plan of a request's fields; InvalidArgument naming the bad one."""
    found = ALGORITHMS.get(ALIASES.get(algorithm, algorithm))
    if found is None:
        raise InvalidArgument("algorithm", f"one of {', '.join(ALGORITHMS)} (got {algorithm!r})")
    checked = found.config(dict(config or {}), "config")
    endpoint = None
    if target:
        unknown = sorted(set(target) - {"api_endpoint"})
        if unknown:
            raise InvalidArgument(f"target.{unknown[0]}", "a target is {api_endpoint: {...}}")
        endpoint = endpoint_of(target.get("api_endpoint"), "target.api_endpoint")
    columns = {key: key for key in COLUMNS.values()}
    for name, value in (data_config or {}).items():
        if name in IGNORED_DATA_CONFIG:
            continue
        if name not in COLUMNS:
            raise InvalidArgument(
                f"data_config.{name}", f"one of {', '.join((*COLUMNS, *IGNORED_DATA_CONFIG))}"
            )
        if not isinstance(value, str) or not value:
            raise InvalidArgument(f"data_config.{name}", "a column name or dotted path")
        columns[COLUMNS[name]] = value
    template = prompt_template or DEFAULT_TEMPLATE
    placeholders = string.Template(template)
    if not placeholders.is_valid():
        raise InvalidArgument(
            "prompt_template", "a $ must start $model_input or ${model_input} (write $$ for $)"
        )
    if placeholders.get_identifiers() != ["model_input"]:
        raise InvalidArgument(
            "prompt_template", "must contain $model_input and no other placeholder"
        )
    return Plan(found, checked, endpoint, template, columns, dict(params or {}))


READS_OUTPUTS = frozenset({"summarization_accuracy"})
"""Algorithms that score a row's ``model_output`` when it has one, calling no model for it."""


def needs_model(plan: Plan, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the evaluation calls a model (not when every row holds its output, for an
    algorithm that can read one)."""
    if plan.algorithm.name in READS_OUTPUTS:
        return not all(isinstance(row.get("model_output"), str) for row in rows)
    return True


async def probe(plan: Plan, rows: Sequence[Mapping[str, Any]], model: Model) -> None:
    """Fail the whole evaluation at once (FailedPrecondition) when the model cannot give what
    the algorithm needs from every row: prompt log-probabilities."""
    if "sent_more_input" not in plan.algorithm.columns:
        return
    text = next(
        (r["sent_more_input"] for r in rows if isinstance(r.get("sent_more_input"), str)), None
    )
    if text is not None:
        await model.log_probability(text)


def _lookup(row: Mapping[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def canonical(plan: Plan, row: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset row with the algorithm's keys (``model_input``, ``target_output``, ...);
    a key whose column the row lacks is left out."""
    found: dict[str, Any] = {}
    for key, path in plan.columns.items():
        value = _lookup(row, path)
        if value is not None:
            found[key] = value
    return found


NO_RUNTIME = "BERTScore is not computed: no model runtime"


def bertscore_of(plan: Plan, models: Models | None) -> tuple[BertScore | None, str | None]:
    """The BERTScore of the plan's ``model_type_for_bertscore``, or None and why not (the model
    is not in the models directory, or there is no model runtime). Neither for an algorithm
    without BERTScores."""
    if not plan.algorithm.unavailable:
        return None, None
    if models is None:
        return None, NO_RUNTIME
    model = str(getattr(plan.config, "model_type_for_bertscore", bert.DEFAULT_MODEL))
    try:
        models.resolve(model)
    except FailedPrecondition as exc:
        return None, f"BERTScore is not computed: {exc}"
    layers = bert.default_layers(model)
    assert layers is not None, model  # the configs accept only FMEval's models
    request = ModelRequest(bert.KIND, model, {"num_layers": layers})
    runtime = models

    async def score(references: Sequence[str], candidates: Sequence[str]) -> list[float]:
        if not candidates:
            return []
        results = await runtime.run(request, list(zip(candidates, references, strict=True)))
        return [float(f1) for _, _, f1 in results]

    return score, None


async def score_row(
    plan: Plan,
    index: int,
    row: Mapping[str, Any],
    model: Model,
    context: Any,
    bertscore: BertScore | None = None,
) -> dict[str, Any]:
    """The record of one row; never raises for a problem of the row."""
    record: dict[str, Any] = {
        "row": index,
        "input": dict(row),
        "scores": {},
        "details": {},
        "error": None,
    }
    given = plan.algorithm.name in READS_OUTPUTS and "model_output" in row
    missing = [
        c for c in plan.algorithm.columns if c not in row and not (given and c == "model_input")
    ]
    try:
        if missing:
            raise InvalidArgument(
                f"rows[{index}]",
                f"no {missing[0]} (column {plan.columns[missing[0]]!r}; set "
                f"data_config.{_config_field(missing[0])})",
            )
        result = await plan.algorithm.evaluate_row(
            row, index, plan.config, model, plan.prompt_template, context, bertscore
        )
    except EvalError as exc:
        record["error"] = _error(exc.to_status())
        return record
    except Exception:  # a bug: the row errs, the evaluation goes on
        record["error"] = _error(internal_status())
        return record
    record["scores"] = {
        name: (None if value is None or math.isnan(value) else value)
        for name, value in result.scores.items()
    }
    record["details"] = result.details
    return record


def _config_field(key: str) -> str:
    return next(name for name, value in COLUMNS.items() if value == key)


def _error(status: Any) -> dict[str, Any]:
    return {"code": code_pb2.Code.Name(status.code), "message": status.message}


def aggregation(
    plan: Plan, records: Sequence[Mapping[str, Any]], unavailable_because: str | None = NO_RUNTIME
) -> dict[str, Any]:
    """``aggregation.json``: the algorithm's dataset scores overall and per category; the
    BERTScores are listed unavailable when ``unavailable_because`` says why (from
    :func:`bertscore_of`)."""
    results: list[tuple[Mapping[str, Any], RowResult | None]] = [
        (
            record["input"],
            None
            if record["error"] is not None
            else RowResult(dict(record["scores"]), record["details"]),
        )
        for record in records
    ]
    summaries = plan.algorithm.summarize(results)
    missing = list(plan.algorithm.unavailable) if unavailable_because is not None else []
    found: dict[str, Any] = {
        "algorithm": plan.algorithm.name,
        "rows": len(records),
        "rows_failed": sum(1 for r in records if r["error"] is not None),
        "scores": [
            {
                "name": s.name,
                "value": _finite(s.value),
                "count": s.count,
                "categories": {k: _finite(v) for k, v in s.categories.items()},
            }
            for s in summaries
        ],
        "unavailable": missing,
    }
    if missing:
        found["notes"] = [unavailable_because]
    return found


def _finite(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value
