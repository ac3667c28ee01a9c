"""A NeMo Evaluator job body (config and target) checked and turned into what runs.

Every problem is an ``InvalidArgument`` naming its JSON path in the body
(``config.tasks.qa.metrics.bleu.params.references``), answered 422 with NeMo's error shape.

Config types:

- ``custom``: named tasks of type ``completion`` (``params.template`` is the prompt, or an
  object with ``prompt`` and inference parameters), ``chat-completion`` (``params.template`` is
  the chat request body: ``messages`` and any other request fields, such as ``tools``), or
  ``data`` (no model call: the row holds the output). Each names its metrics by type.
- ``similarity_metrics``: tasks whose rows hold ``prompt`` (or ``input``) and
  ``ideal_response`` (or ``reference``), and ``output`` when the outputs exist already; the
  metrics are ``accuracy``, ``bleu``, ``rouge``, ``em`` and ``f1`` with fixed templates.

Targets: ``model`` (``api_endpoint``), ``rows`` (inline rows), ``dataset`` (a dataset of rows
holding outputs) and ``cached_outputs`` (NeMo's ``output.json``: ``{input, response}`` items).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evald.errors import InvalidArgument
from evald.metrics.base import Metric
from evald.metrics.catalog import Catalog
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import _compile
from evald.nemo.errors import loc_of
from evald.nemo.errors import path as join
from evald.targets import Endpoint

TASK_KINDS = {"completion": "completion", "chat-completion": "chat", "data": "data"}
SIMILARITY = "similarity_metrics"
SIMILARITY_METRICS = ("accuracy", "bleu", "rouge", "em", "f1")
TARGET_TYPES = ("model", "rows", "dataset", "cached_outputs")
ENDPOINT_FORMATS = ("nim", "openai", "gemini")
INFERENCE_KEYS = ("max_tokens", "temperature", "top_p", "stop")
MAX_PARALLELISM = 1024
MAX_RETRIES = 20
MAX_REQUEST_SECONDS = 3600.0
CONFIG_PARAMS = (*INFERENCE_KEYS, "extra", "limit_samples", "parallelism", "max_retries",
                 "request_timeout")  # fmt: skip
"""NeMo's ``EvaluationParams``: anything else is refused rather than silently ignored."""
DATASET_UNSUPPORTED = ("split",)
"""Config-level ``params`` passed to the model as they are (``extra`` entries too)."""
JOB_KEYS = ("limit_samples", "parallelism", "max_retries", "request_timeout")
"""Config-level ``params`` that steer the job, not the model."""
PROMPT_COLUMNS = ("prompt", "input")
REFERENCE_COLUMNS = ("ideal_response", "reference")
OUTPUT_COLUMNS = ("output", "output_text")
"""Row columns a ``data`` task (and a similarity task) reads the output from, in order; a
chat completion in ``response`` is the output too (``sample.response``)."""
_REFERENCE = "{{item.ideal_response}}"


@dataclass(frozen=True)
class Dataset:
    """Where a task's rows come from: a files URL, or rows given inline."""

    files_url: str | None = None
    rows: tuple[Mapping[str, Any], ...] | None = None
    limit: int | None = None
    hf_endpoint: str | None = None
    field: str = ""
    """The request field it was given at."""
    cached_outputs: bool = False
    """NeMo's ``output.json``: each item ``{input, response}`` becomes the row ``input`` with
    ``output`` = ``response``."""


@dataclass(frozen=True)
class MetricPlan:
    """One metric of a task."""

    key: str
    metric: Metric
    params: Params
    path: str
    rename: Mapping[str, str] = field(default_factory=dict)
    """Score names as reported (``similarity_metrics``: ``em`` is ``em_score``)."""
    divisor: float = 1.0
    """What the reported scores are divided by (``similarity_metrics`` report BLEU on
    0..1)."""

    @property
    def judged(self) -> bool:
        return self.metric.needs_judge


@dataclass(frozen=True)
class TaskPlan:
    """One task: how a row becomes a model call, and its metrics."""

    name: str
    kind: str
    """``completion``, ``chat`` or ``data`` (no model call)."""
    dataset: Dataset
    template: Any
    """The prompt template (completion) or the chat body template (chat)."""
    inference: Mapping[str, Any]
    """Request fields besides the prompt or messages (max_tokens, temperature, ...)."""
    metrics: tuple[MetricPlan, ...]
    path: str
    similarity: bool = False


@dataclass(frozen=True)
class Plan:
    """What a job or live evaluation runs."""

    tasks: tuple[TaskPlan, ...]
    endpoint: Endpoint | None
    limit: int | None = None
    parallelism: int | None = None
    max_retries: int | None = None
    request_timeout: float | None = None
    similarity: bool = False

    @property
    def judged(self) -> bool:
        return any(m.judged for t in self.tasks for m in t.metrics)


def build(config: Mapping[str, Any], target: Mapping[str, Any] | None, catalog: Catalog) -> Plan:
    """The plan of a resolved (inline) config and target; InvalidArgument naming the field.
    Without a target (a config stored on its own) only the config is checked: a task may
    then leave its dataset to the target."""
    if not isinstance(config, Mapping):
        raise InvalidArgument("config", "must be an object or 'namespace/name'")
    if target is not None and not isinstance(target, Mapping):
        raise InvalidArgument("target", "must be an object or 'namespace/name'")
    endpoint, target_data = target_of(target) if target is not None else (None, Dataset())
    kind = config.get("type")
    if not isinstance(kind, str) or not kind:
        raise InvalidArgument("config.type", f"give the config type: custom or {SIMILARITY}")
    if kind not in ("custom", SIMILARITY):
        raise InvalidArgument(
            "config.type",
            f"evald runs config types custom and {SIMILARITY}, not {kind!r} (NeMo's "
            "benchmark types need the benchmark's harness)",
        )
    params = _mapping(config.get("params"), "config.params")
    inference, job = _config_params(params)
    tasks = config.get("tasks")
    if isinstance(tasks, list) and kind == SIMILARITY:  # the earlier list form
        tasks = {
            str(t.get("name", f"task{i}")): t for i, t in enumerate(tasks) if isinstance(t, dict)
        }
    if not isinstance(tasks, Mapping) or not tasks:
        raise InvalidArgument("config.tasks", "name at least one task")
    planned = []
    for name, task in tasks.items():
        where = join("config", "tasks", str(name))
        if not isinstance(task, Mapping):
            raise InvalidArgument(where, "must be an object")
        if kind == SIMILARITY:
            planned.append(
                _similarity_task(str(name), task, where, inference, target_data, catalog)
            )
        else:
            planned.append(_custom_task(str(name), task, where, inference, target_data, catalog))
    if target is not None and endpoint is None and any(_calls_model(t) for t in planned):
        raise InvalidArgument(
            "target.type",
            "these tasks call a model: give a model target with an api_endpoint (or rows that "
            "hold the outputs, with data tasks)",
        )
    return Plan(tuple(planned), endpoint, similarity=kind == SIMILARITY, **job)


def _calls_model(task: TaskPlan) -> bool:
    """Whether a task needs a model (similarity tasks need one only for rows without an
    output)."""
    return task.kind in ("completion", "chat")


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgument(where, "must be an object")
    return value


def _config_params(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(inference fields, job settings)`` of a config's ``params``."""
    unknown = sorted(set(params) - set(CONFIG_PARAMS))
    if unknown:
        raise InvalidArgument(
            f"config.params.{unknown[0]}", f"unknown parameter; one of {', '.join(CONFIG_PARAMS)}"
        )
    inference: dict[str, Any] = {}
    for key in INFERENCE_KEYS:
        if params.get(key) is not None:
            inference[key] = params[key]
    for key, value in _mapping(params.get("extra"), "config.params.extra").items():
        inference[key] = value  # top_k and the like, passed as the request fields they are
    job: dict[str, Any] = {}
    names = {"limit_samples": "limit"}
    for key in JOB_KEYS:
        value = params.get(key)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or value < (0 if key == "max_retries" else 1)
        ):
            raise InvalidArgument(f"config.params.{key}", "must be a positive number")
        job[names.get(key, key)] = value
    ceilings = {"parallelism": MAX_PARALLELISM, "max_retries": MAX_RETRIES,
                "request_timeout": MAX_REQUEST_SECONDS}  # fmt: skip
    for key, ceiling in ceilings.items():
        if job.get(key, 0) > ceiling:
            raise InvalidArgument(f"config.params.{key}", f"at most {ceiling:g}")
    if "limit" in job:
        job["limit"] = int(job["limit"])
    if "parallelism" in job:
        job["parallelism"] = int(job["parallelism"])
    if "max_retries" in job:
        job["max_retries"] = int(job["max_retries"])
    if "request_timeout" in job:
        job["request_timeout"] = float(job["request_timeout"])
    return inference, job


def target_of(target: Mapping[str, Any]) -> tuple[Endpoint | None, Dataset | None]:
    """A target's model endpoint, or the rows it holds; InvalidArgument naming the field."""
    kind = target.get("type")
    if kind not in TARGET_TYPES:
        raise InvalidArgument(
            "target.type",
            f"one of {', '.join(TARGET_TYPES)} (got {kind!r}); retriever and "
            "rag targets are not served",
        )
    if kind == "model":
        model = target.get("model")
        if isinstance(model, str):
            raise InvalidArgument(
                "target.model",
                "model entities are not served: give {api_endpoint: {url, model_id}}",
            )
        if not isinstance(model, Mapping):
            raise InvalidArgument("target.model", "a model target needs model.api_endpoint")
        return endpoint_of(model.get("api_endpoint"), "target.model.api_endpoint"), None
    if kind == "rows":
        rows = target.get("rows")
        if not isinstance(rows, list) or not rows:
            raise InvalidArgument("target.rows", "give at least one row")
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise InvalidArgument(f"target.rows[{i}]", "each row must be an object")
        return None, Dataset(rows=tuple(rows), field="target.rows")
    if kind == "dataset":
        return None, dataset_of(target.get("dataset"), "target.dataset")
    cached = _mapping(target.get("cached_outputs"), "target.cached_outputs")
    url = cached.get("files_url")
    if not isinstance(url, str) or not url:
        raise InvalidArgument("target.cached_outputs.files_url", "the outputs file is required")
    return None, Dataset(
        files_url=url, field="target.cached_outputs.files_url", cached_outputs=True
    )


def endpoint_of(value: Any, where: str) -> Endpoint:
    """An ``api_endpoint`` object as an :class:`Endpoint`."""
    if not isinstance(value, Mapping):
        raise InvalidArgument(where, "must be {url, model_id, api_key?, format?}")
    url = value.get("url")
    model_id = value.get("model_id")
    fmt = value.get("format") or "nim"
    if fmt not in ENDPOINT_FORMATS:
        raise InvalidArgument(f"{where}.format", f"one of {', '.join(ENDPOINT_FORMATS)}")
    if not isinstance(url, str) or (not url and fmt != "gemini"):
        raise InvalidArgument(f"{where}.url", "the endpoint's URL is required")
    if url and not re.match(r"^https?://[^/\s]+", url):
        raise InvalidArgument(f"{where}.url", "must be an http:// or https:// URL")
    if not isinstance(model_id, str) or not model_id:
        raise InvalidArgument(f"{where}.model_id", "the model's id is required")
    api_key = value.get("api_key")
    if api_key is not None and not isinstance(api_key, str):
        raise InvalidArgument(f"{where}.api_key", "must be a string")
    return Endpoint(url=url, model_id=model_id, api_key=api_key or None, format=fmt)


def dataset_of(value: Any, where: str) -> Dataset:
    """A task's or target's ``dataset``: ``{files_url, limit?, hf_endpoint?}``, or a string:
    a files URL, or ``namespace/name`` of a data store dataset."""
    if isinstance(value, str) and value:
        url = value if "://" in value or value.startswith("/") else f"hf://datasets/{value}"
        return Dataset(files_url=url, field=where)
    if not isinstance(value, Mapping):
        raise InvalidArgument(where, "must be {files_url} or a files URL")
    files_url = value.get("files_url")
    if not isinstance(files_url, str) or not files_url:
        raise InvalidArgument(f"{where}.files_url", "the dataset's files URL is required")
    for key in DATASET_UNSUPPORTED:
        if value.get(key) is not None:
            raise InvalidArgument(f"{where}.{key}", "not supported: give the split's file")
    limit = value.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgument(f"{where}.limit", "must be a positive integer")
    endpoint = value.get("hf_endpoint")
    if endpoint is not None and not isinstance(endpoint, str):
        raise InvalidArgument(f"{where}.hf_endpoint", "must be a URL")
    return Dataset(
        files_url=files_url, limit=limit, hf_endpoint=endpoint or None, field=f"{where}.files_url"
    )


def _task_dataset(task: Mapping[str, Any], where: str, target_data: Dataset | None) -> Dataset:
    if task.get("dataset") is not None:
        return dataset_of(task["dataset"], f"{where}.dataset")
    if target_data is None:
        raise InvalidArgument(f"{where}.dataset", "the task needs a dataset (files_url)")
    return target_data


def _custom_task(
    name: str,
    task: Mapping[str, Any],
    where: str,
    config_inference: Mapping[str, Any],
    target_data: Dataset | None,
    catalog: Catalog,
) -> TaskPlan:
    kind = TASK_KINDS.get(str(task.get("type")))
    if kind is None:
        raise InvalidArgument(f"{where}.type", f"one of {', '.join(TASK_KINDS)}")
    params = _mapping(task.get("params"), f"{where}.params")
    unknown = sorted(set(params) - {"template"})
    if unknown:
        raise InvalidArgument(f"{where}.params.{unknown[0]}", "unknown task parameter")
    inference = dict(config_inference)
    template: Any = None
    raw = params.get("template")
    tpath = f"{where}.params.template"
    if kind == "completion":
        if isinstance(raw, Mapping):
            if "messages" in raw and "prompt" not in raw:
                raise InvalidArgument(
                    f"{tpath}.messages",
                    "a completion task takes a prompt; use a chat-completion task for messages",
                )
            template = raw.get("prompt")
            inference.update({k: v for k, v in raw.items() if k != "prompt"})
        else:
            template = raw
        if not isinstance(template, str) or not template:
            raise InvalidArgument(f"{tpath}.prompt", "a prompt template is required")
        _check_template(template, f"{tpath}.prompt" if isinstance(raw, Mapping) else tpath)
    elif kind == "chat":
        if not isinstance(raw, Mapping):
            raise InvalidArgument(tpath, "a chat request template {messages: [...]} is required")
        messages = raw.get("messages")
        # A list of messages, or one template rendering to the list
        # (``{{ item.messages | tojson }}``).
        if isinstance(messages, str) and "{" in messages:
            pass
        elif not isinstance(messages, list) or not messages:
            raise InvalidArgument(
                f"{tpath}.messages", "give at least one message (or a template of the list)"
            )
        else:
            for i, message in enumerate(messages):
                if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
                    raise InvalidArgument(f"{tpath}.messages[{i}]", "must be {role, content}")
        _check_strings(raw, tpath)
        template = {"messages": messages}
        inference.update({k: v for k, v in raw.items() if k != "messages"})
    elif raw is not None:
        raise InvalidArgument(tpath, "a data task calls no model: it takes no template")
    metrics = _metrics(task.get("metrics"), f"{where}.metrics", catalog)
    return TaskPlan(name, kind, _task_dataset(task, where, target_data), template, inference,
                    metrics, where)  # fmt: skip


def _metrics(value: Any, where: str, catalog: Catalog) -> tuple[MetricPlan, ...]:
    if not isinstance(value, Mapping) or not value:
        raise InvalidArgument(where, "name at least one metric")
    plans = []
    for key, spec in value.items():
        at = join(*_split(where), str(key))
        if not isinstance(spec, Mapping):
            raise InvalidArgument(at, "must be {type, params}")
        kind = spec.get("type")
        metric = catalog.nemo.get(kind) if isinstance(kind, str) else None
        if metric is None:
            raise InvalidArgument(f"{at}.type", f"one of {', '.join(catalog.nemo)} (got {kind!r})")
        raw = _mapping(spec.get("params"), f"{at}.params")
        plans.append(_metric_plan(str(key), metric, raw, f"{at}.params"))
    return tuple(plans)


def _split(dotted: str) -> list[str]:
    return [str(p) for p in loc_of(dotted)[1:]]


def _metric_plan(
    key: str,
    metric: Metric,
    raw: Mapping[str, Any],
    where: str,
    rename: Mapping[str, str] | None = None,
    divisor: float = 1.0,
) -> MetricPlan:
    values = metric.nemo_params(raw, where)
    _check_strings(values, where, skip=("model",))
    return MetricPlan(key, metric, Params(values, _declared(metric), where), where,
                      rename or {}, divisor)  # fmt: skip


def _declared(metric: Metric) -> Any:
    """The parameters a metric's NeMo params are checked against (llm-judge's are its own)."""
    if metric.needs_judge:
        return (
            Parameter("model", "any", "the judge"),
            Parameter("template", "any", "the chat template"),
            Parameter("scores", "any", "the scores"),
        )
    return metric.parameters


def _similarity_task(
    name: str,
    task: Mapping[str, Any],
    where: str,
    inference: Mapping[str, Any],
    target_data: Dataset | None,
    catalog: Catalog,
) -> TaskPlan:
    kind = task.get("type", "default")
    if kind != "default":
        raise InvalidArgument(f"{where}.type", "similarity_metrics tasks are of type default")
    requested = task.get("metrics")
    if isinstance(requested, list):  # the earlier form: [{"name": "bleu"}, ...]
        requested = {
            str(m.get("name")): {"type": m.get("name")} for m in requested if isinstance(m, dict)
        }
    if not isinstance(requested, Mapping) or not requested:
        raise InvalidArgument(
            f"{where}.metrics", f"name metrics among {', '.join(SIMILARITY_METRICS)}"
        )
    plans = []
    for key, spec in requested.items():
        at = join(*_split(f"{where}.metrics"), str(key))
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if kind not in SIMILARITY_METRICS:
            raise InvalidArgument(
                f"{at}.type", f"similarity_metrics computes {', '.join(SIMILARITY_METRICS)}"
            )
        metric = catalog.nemo[kind]
        if kind == "bleu":
            raw: dict[str, Any] = {"references": [_REFERENCE]}
            plans.append(_metric_plan(str(key), metric, raw, f"{at}.params",
                                      {"sentence": "bleu_score", "corpus": "corpus_bleu_score"},
                                      100.0))  # fmt: skip
        elif kind == "rouge":
            plans.append(
                _metric_plan(str(key), metric, {"ground_truth": _REFERENCE}, f"{at}.params")
            )
        else:
            rename = {"accuracy": "accuracy", "em": "em_score", "f1": "f1_score"}
            plans.append(_metric_plan(str(key), metric, {"ground_truth": _REFERENCE},
                                      f"{at}.params", {kind: rename[kind]}))  # fmt: skip
    return TaskPlan(name, "similarity", _task_dataset(task, where, target_data), None,
                    dict(inference), tuple(plans), where, similarity=True)  # fmt: skip


def _check_template(template: str, where: str) -> None:
    """A template that does not parse is refused when the job is created, not per row."""
    try:
        _compile(template)
    except Exception as exc:  # jinja2's TemplateSyntaxError and friends
        raise InvalidArgument(where, f"template error: {exc}") from None


def _check_strings(value: Any, where: str, skip: Sequence[str] = ()) -> None:
    """Every string inside ``value`` parses as a template."""
    if isinstance(value, str):
        if "{" in value:
            _check_template(value, where)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in skip:
                _check_strings(item, join(*_split(where), str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings(item, f"{where}[{i}]")
