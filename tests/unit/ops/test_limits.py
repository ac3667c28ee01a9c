"""Request size limits (field path and limit named) and calls in flight per key."""

from __future__ import annotations

from typing import Any

import pytest
from evald.config import Settings
from evald.ops.auth import Principal
from evald.ops.limits import Concurrency, LimitExceeded, RequestLimits, SizeLimitExceeded
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.rpc import error_details_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

LIMITS = RequestLimits(
    max_instances=3, max_template_bytes=10, max_code_bytes=8, max_metrics=4, max_text_bytes=12
)


def exact(n: int) -> Any:
    instances = [m.ExactMatchInstance(prediction="a", reference="a")] * n
    return m.EvaluateInstancesRequest(exact_match_input=m.ExactMatchInput(instances=instances))


def pointwise(template: str, system: str = "") -> Any:
    spec = m.PointwiseMetricSpec(metric_prompt_template=template, system_instruction=system)
    return m.EvaluateInstancesRequest(
        pointwise_metric_input=m.PointwiseMetricInput(metric_spec=spec)
    )


def llm(template: str = "", parser: str = "", rubric: str = "") -> Any:
    spec = m.LLMBasedMetricSpec(metric_prompt_template=template)
    if parser:
        spec.result_parser_config.custom_code_parser_config.parsing_function = parser
    if rubric:
        spec.rubric_generation_spec.prompt_template = rubric
    return m.EvaluateInstancesRequest(
        metrics=[
            m.Metric(exact_match_spec=m.ExactMatchSpec()),
            m.Metric(llm_based_metric_spec=spec),
        ]
    )


def code(function: str) -> Any:
    metric = m.Metric(
        custom_code_execution_spec=m.CustomCodeExecutionSpec(evaluation_function=function)
    )
    return m.EvaluateInstancesRequest(metric_sources=[m.MetricSource(metric=metric)])


def metrics(count: int, sources: int = 0) -> Any:
    metric = m.Metric(exact_match_spec=m.ExactMatchSpec())
    return m.EvaluateInstancesRequest(
        metrics=[metric] * count, metric_sources=[m.MetricSource(metric=metric)] * sources
    )


def texts(response: str = "", reference: str = "", context: str = "", part: str = "") -> Any:
    instance = m.EvaluationInstance()
    instance.response.text = response
    instance.reference.text = reference
    if context:
        instance.other_data.map_instance["context"].text = context
    if part:
        instance.prompt.contents.contents.add().parts.add(text=part)
    return m.EvaluateInstancesRequest(
        metrics=[m.Metric(exact_match_spec=m.ExactMatchSpec())], instance=instance
    )


def exact_texts(*references: str) -> Any:
    instances = [m.ExactMatchInstance(prediction="a", reference=r) for r in references]
    return m.EvaluateInstancesRequest(exact_match_input=m.ExactMatchInput(instances=instances))


CASES = [
    # (request, offending field or None, limit named)
    (exact(3), None, None),
    (exact(4), "exact_match_input.instances", "max_instances"),
    (pointwise("0123456789"), None, None),  # exactly at the limit
    (
        pointwise("0123456789X"),
        "pointwise_metric_input.metric_spec.metric_prompt_template",
        "max_template_bytes",
    ),
    (
        pointwise("ok", "é" * 6),
        "pointwise_metric_input.metric_spec.system_instruction",
        "max_template_bytes",
    ),
    (
        llm(template="t" * 11),
        "metrics[1].llm_based_metric_spec.metric_prompt_template",
        "max_template_bytes",
    ),
    (
        llm(rubric="r" * 11),
        "metrics[1].llm_based_metric_spec.rubric_generation_spec.prompt_template",
        "max_template_bytes",
    ),
    (
        llm(parser="p" * 9),
        "metrics[1].llm_based_metric_spec.result_parser_config."
        "custom_code_parser_config.parsing_function",
        "max_code_bytes",
    ),
    (code("c" * 8), None, None),
    (metrics(4), None, None),
    (metrics(5), "metrics", "max_metrics"),
    (metrics(2, sources=3), "metric_sources", "max_metrics"),
    (texts(response="r" * 12), None, None),
    (texts(response="r" * 13), "instance.response.text", "max_text_bytes"),
    (texts(reference="é" * 7), "instance.reference.text", "max_text_bytes"),
    (texts(context="c" * 13), "instance.other_data.map_instance['context'].text", "max_text_bytes"),
    (texts(part="p" * 13), "instance.prompt.contents.contents[0].parts[0].text", "max_text_bytes"),
    (exact_texts("a", "b" * 13), "exact_match_input.instances[1].reference", "max_text_bytes"),
    (
        code("c" * 9),
        "metric_sources[0].metric.custom_code_execution_spec.evaluation_function",
        "max_code_bytes",
    ),
]


@pytest.mark.parametrize(("request_", "field", "limit"), CASES)
def test_request_limits(request_: Any, field: str | None, limit: str | None) -> None:
    if field is None:
        LIMITS.check(request_)
        return
    with pytest.raises(SizeLimitExceeded) as caught:
        LIMITS.check(request_)
    assert caught.value.field == field
    assert limit is not None
    assert caught.value.limit == limit
    assert limit in caught.value.message


def test_fits_is_exact_at_its_bound() -> None:
    limits = RequestLimits(
        max_instances=100,
        max_template_bytes=300,
        max_code_bytes=250,
        max_metrics=150,
        max_text_bytes=400,
    )
    assert limits.fits(200)  # 2 bytes per instance at least: 100 instances at most
    assert not limits.fits(201)


def empty_instances(n: int) -> Any:
    return m.EvaluateInstancesRequest(
        exact_match_input=m.ExactMatchInput(instances=[m.ExactMatchInstance()] * n)
    )


@settings(max_examples=500, deadline=None)
@given(
    limits=st.builds(
        RequestLimits,
        max_instances=st.integers(0, 20),
        max_template_bytes=st.integers(0, 60),
        max_code_bytes=st.integers(0, 60),
        max_metrics=st.integers(0, 10),
        max_text_bytes=st.integers(0, 60),
    ),
    request_=st.one_of(
        st.integers(0, 10).map(metrics),
        st.builds(texts, st.text(max_size=12), st.text(max_size=12), st.text(max_size=12)),
        st.integers(0, 20).map(empty_instances),
        st.integers(0, 20).map(exact),
        st.builds(pointwise, st.text(max_size=12), st.text(max_size=12)),
        st.builds(llm, st.text(max_size=12), st.text(max_size=12), st.text(max_size=12)),
        st.text(max_size=40).map(code),
    ),
)
def test_a_request_small_enough_to_fit_passes_the_check(
    limits: RequestLimits, request_: Any
) -> None:
    """``fits`` lets the server skip ``check``: only ever for requests ``check`` passes."""
    if limits.fits(request_.ByteSize()):
        limits.check(request_)


def test_defaults_let_large_batches_through() -> None:
    RequestLimits.from_settings(Settings()).check(exact(10_000))


def test_concurrency_per_principal() -> None:
    limits = Concurrency(default_limit=2)
    a, b, own = Principal("a"), Principal("b"), Principal("own", max_concurrent=1)
    with limits.admit(a), limits.admit(a), limits.admit(b):
        with pytest.raises(LimitExceeded) as caught, limits.admit(a):
            pass
        assert "max_concurrent_per_key" in caught.value.message
        failure = error_details_pb2.QuotaFailure()
        assert caught.value.to_status().details[0].Unpack(failure)
        assert failure.violations[0].subject == "key:a"
        assert caught.value.to_status().code == 8  # RESOURCE_EXHAUSTED
        with limits.admit(own), pytest.raises(LimitExceeded, match=r"\(max_concurrent\) is 1"):
            limits.acquire(own)
    assert limits.in_flight == {}  # every slot given back
    assert not Concurrency(0).enabled_for(a)
    with Concurrency(0).admit(a), Concurrency(0).admit(a):
        pass  # 0: no limit
