"""Checking NeMo job bodies: each malformed one is refused naming its JSON path; the
documented ones plan as NeMo runs them."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.nemo import plan
from evald.nemo.errors import loc_of
from evald.nemo.evaluation import stats

MODEL = {"type": "model", "model": {"api_endpoint": {"url": "http://m:8000/v1", "model_id": "x"}}}
TASK = {
    "type": "completion",
    "params": {"template": {"prompt": "Q: {{question}}", "max_tokens": 30}},
    "dataset": {"files_url": "hf://datasets/default/qa"},
    "metrics": {"acc": {"type": "string-check",
                        "params": {"check": ["{{sample.output_text}}", "contains", "{{item.a}}"]}}},
}  # fmt: skip
CONFIG = {"type": "custom", "params": {"temperature": 0.5, "extra": {"top_k": 20}},
          "tasks": {"qa": TASK}}  # fmt: skip


def changed(path: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """``CONFIG`` (or ``base``) with the value at dotted ``path`` replaced (None deletes)."""
    found = copy.deepcopy(base or CONFIG)
    keys = [k for k in loc_of(path)[1:]]
    where: Any = found
    for key in keys[:-1]:
        where = where[key]
    if value is None:
        del where[keys[-1]]
    else:
        where[keys[-1]] = value
    return found


BAD_CONFIGS = [
    (changed("type", "mmlu"), "config.type"),
    (changed("tasks", {}), "config.tasks"),
    (changed("tasks.qa.type", "completions"), "config.tasks.qa.type"),
    (changed("tasks.qa.params.template", None), "config.tasks.qa.params.template.prompt"),
    (changed("tasks.qa.params.template.prompt", "{{ x"), "config.tasks.qa.params.template.prompt"),
    (changed("tasks.qa.params.extra", 1), "config.tasks.qa.params.extra"),
    (changed("tasks.qa.dataset", None), "config.tasks.qa.dataset"),
    (changed("tasks.qa.dataset.limit", 0), "config.tasks.qa.dataset.limit"),
    (changed("tasks.qa.metrics", {}), "config.tasks.qa.metrics"),
    (changed("tasks.qa.metrics.acc.type", "accuracy-ish"), "config.tasks.qa.metrics.acc.type"),
    (changed("tasks.qa.metrics.acc.params.check", ["a", "equals"]),
     "config.tasks.qa.metrics.acc.params.check"),
    (changed("tasks.qa.metrics.acc.params.check", ["a", "equalz", "b"]),
     "config.tasks.qa.metrics.acc.params.check[1]"),
    (changed("params.parallelism", 0), "config.params.parallelism"),
    (changed("params.parallelism", 10**9), "config.params.parallelism"),
    (changed("params.max_retries", 1000), "config.params.max_retries"),
    (changed("params.temprature", 0.5), "config.params.temprature"),
    (changed("tasks.qa.dataset.split", "test"), "config.tasks.qa.dataset.split"),
    (changed("tasks", {"my.task": TASK}), "config.tasks['my.task'].metrics.acc.params.check"),
]  # fmt: skip
BAD_CONFIGS[-1][0]["tasks"]["my.task"] = changed(
    "metrics.acc.params.check", "x", {"metrics": copy.deepcopy(TASK["metrics"])}
) | {k: v for k, v in TASK.items() if k != "metrics"}


@pytest.mark.parametrize(("config", "field"), BAD_CONFIGS)
def test_bad_configs_name_the_field(config: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        plan.build(config, MODEL, builtin())
    assert caught.value.violations[0].field == field


BAD_TARGETS = [
    ({"type": "rag"}, "target.type"),
    ({"type": "model", "model": "ns/name"}, "target.model"),
    ({"type": "model", "model": {"api_endpoint": {"url": "ftp://x", "model_id": "m"}}},
     "target.model.api_endpoint.url"),
    ({"type": "model", "model": {"api_endpoint": {"url": "http://x", "model_id": ""}}},
     "target.model.api_endpoint.model_id"),
    ({"type": "model", "model": {"api_endpoint": {"url": "http://x", "model_id": "m",
                                                  "format": "lama_stack"}}},
     "target.model.api_endpoint.format"),
    ({"type": "rows", "rows": []}, "target.rows"),
    ({"type": "rows", "rows": [1]}, "target.rows[0]"),
    ({"type": "cached_outputs", "cached_outputs": {}}, "target.cached_outputs.files_url"),
    ({"type": "rows", "rows": [{"a": 1}]}, "target.type"),  # a completion task needs a model
]  # fmt: skip


@pytest.mark.parametrize(("target", "field"), BAD_TARGETS)
def test_bad_targets_name_the_field(target: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        plan.build(CONFIG, target, builtin())
    assert caught.value.violations[0].field == field


def test_a_documented_custom_task_plans_as_nemo_runs_it() -> None:
    found = plan.build(CONFIG, MODEL, builtin())
    (task,) = found.tasks
    assert (task.kind, task.template) == ("completion", "Q: {{question}}")
    # Config-level params first, the template's own over them, extra as request fields.
    assert task.inference == {"temperature": 0.5, "top_k": 20, "max_tokens": 30}
    assert task.dataset.files_url == "hf://datasets/default/qa"
    assert [m.key for m in task.metrics] == ["acc"]
    assert found.endpoint is not None
    assert found.endpoint.model_id == "x"


def test_data_tasks_need_no_model_and_take_rows_from_the_target() -> None:
    config = {"type": "custom", "tasks": {"t": {"type": "data", "metrics": {
        "em": {"type": "em", "params": {"ground_truth": "{{item.answer}}"}}}}}}  # fmt: skip
    found = plan.build(
        config, {"type": "rows", "rows": [{"output": "a", "answer": "a"}]}, builtin()
    )
    assert found.endpoint is None
    assert found.tasks[0].dataset.rows == ({"output": "a", "answer": "a"},)


def test_similarity_metrics_take_the_earlier_list_form() -> None:
    config = {"type": "similarity_metrics", "tasks": [{"name": "t", "type": "default",
              "dataset": {"files_url": "x.json"},
              "metrics": [{"name": "bleu"}, {"name": "em"}]}]}  # fmt: skip
    found = plan.build(config, MODEL, builtin())
    assert [(m.key, dict(m.rename)) for m in found.tasks[0].metrics] == [
        ("bleu", {"sentence": "bleu_score", "corpus": "corpus_bleu_score"}),
        ("em", {"em": "em_score"}),
    ]


STATS = [
    # Hand-worked: population variance; stderr from the sample standard deviation.
    ([1.0, 2.0, 3.0, 4.0], {"count": 4, "nan_count": 0, "sum": 10.0, "sum_squared": 30.0,
                            "mean": 2.5, "min": 1.0, "max": 4.0, "variance": 1.25,
                            "stddev": math.sqrt(1.25), "stderr": math.sqrt(5 / 3 / 4)}),
    ([1.0, math.nan, 0.0], {"count": 2, "nan_count": 1, "sum": 1.0, "sum_squared": 1.0,
                            "mean": 0.5, "min": 0.0, "max": 1.0, "variance": 0.25,
                            "stddev": 0.5, "stderr": 0.5}),
    ([7.0], {"count": 1, "nan_count": 0, "sum": 7.0, "sum_squared": 49.0, "mean": 7.0,
             "min": 7.0, "max": 7.0, "variance": 0.0, "stddev": 0.0}),
    ([math.nan], {"count": 0, "nan_count": 1}),
]  # fmt: skip


@pytest.mark.parametrize(("values", "expected"), STATS)
def test_stats(values: list[float], expected: dict[str, float]) -> None:
    found = stats(values)
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value), key
