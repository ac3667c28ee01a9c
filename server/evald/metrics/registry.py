"""Finds every metric handler and says which request inputs are not handled yet, and why."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache

from evald import api
from evald.metrics.base import Handler

JUDGE_PENDING = "LLM-judge (autorater) metrics arrive with the judge capability (issue #3)"
PENDING: dict[str, str] = {
    **{
        name: JUDGE_PENDING
        for name in (
            "fluency_input",
            "coherence_input",
            "safety_input",
            "groundedness_input",
            "fulfillment_input",
            "summarization_quality_input",
            "pairwise_summarization_quality_input",
            "summarization_helpfulness_input",
            "summarization_verbosity_input",
            "question_answering_quality_input",
            "pairwise_question_answering_quality_input",
            "question_answering_relevance_input",
            "question_answering_helpfulness_input",
            "question_answering_correctness_input",
            "pointwise_metric_input",
            "pairwise_metric_input",
            "rubric_based_instruction_following_input",
        )
    },
    "comet_input": "COMET needs a model checkpoint; evald does not compute it yet",
    "metricx_input": "MetricX needs a model checkpoint; evald does not compute it yet",
}
"""Members of ``metric_inputs`` with no handler yet, and what will handle them."""


@cache
def handlers() -> dict[str, Handler]:
    """Every concrete handler in the ``evald.metrics`` package, by the input field it reads."""
    found: dict[str, Handler] = {}
    package = importlib.import_module("evald.metrics")
    for info in pkgutil.walk_packages(package.__path__, prefix="evald.metrics."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, Handler)
                and not inspect.isabstract(cls)
                and cls.__module__ == module.__name__
            ):
                if cls.input_field in found:
                    raise RuntimeError(f"two handlers for {cls.input_field}: {cls.__qualname__}")
                if cls.input_field not in {f.name for f in api.METRIC_INPUTS.fields}:
                    raise RuntimeError(f"{cls.__qualname__} reads unknown input {cls.input_field}")
                found[cls.input_field] = cls()
    return found
