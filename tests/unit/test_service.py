"""evald.service: which requests need no Call of their own, and the cached field lookups."""

from __future__ import annotations

from typing import Any

import pytest
from evald.api import has_field
from evald.call import Call
from evald.service import Evaluator

from tests.support import CALL, MESSAGES

m = MESSAGES["v1beta1"]
COMPUTED = ["exact_match_input", "bleu_input", "rouge_input", "tool_call_valid_input"]
JUDGED = ["pointwise_metric_input", "pairwise_metric_input", "fluency_input"]
EVALUATOR = Evaluator(CALL.services)


@pytest.mark.parametrize(
    ("member", "computed"), [(c, True) for c in COMPUTED] + [(j, False) for j in JUDGED]
)
def test_is_computed(member: str, computed: bool) -> None:
    request = m.EvaluateInstancesRequest()
    getattr(request, member).SetInParent()
    assert (request.WhichOneof("metric_inputs") in EVALUATOR.computed) is computed


def test_a_request_without_metric_input_is_not_computed() -> None:
    assert (m.EvaluateInstancesRequest().WhichOneof("metric_inputs") in EVALUATOR.computed) is False


async def test_computed_requests_run_without_a_call_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[Any] = []
    real = Call.for_request

    def counting(*args: Any) -> Call:
        built.append(args)
        return real(*args)

    monkeypatch.setattr(Call, "for_request", counting)
    request = m.EvaluateInstancesRequest()
    request.exact_match_input.instances.add(prediction="a", reference="a")
    evaluator = EVALUATOR
    response = await evaluator.evaluate_instances(request, evaluator.call_for(request, 5.0))
    assert response.exact_match_results.exact_match_metric_values[0].score == 1.0
    assert len(built) == 1  # only the caller's: the computed metric used the shared default
    response = await evaluator.evaluate_instances(request)
    assert len(built) == 1


def two_bleu_instances() -> Any:
    request = m.EvaluateInstancesRequest()
    request.bleu_input.instances.add(prediction="a", reference="b")
    request.bleu_input.instances.add(prediction="a", reference="b")
    return request


def one_pointwise_instance() -> Any:
    request = m.EvaluateInstancesRequest()
    request.pointwise_metric_input.instance.json_instance = "{}"
    return request


def one_comet_instance() -> Any:  # no handler yet: still described for the request log
    request = m.EvaluateInstancesRequest()
    request.comet_input.instance.prediction = "a"
    return request


def new_style() -> Any:
    request = m.EvaluateInstancesRequest()
    request.metrics.add().exact_match_spec.SetInParent()
    return request


@pytest.mark.parametrize(
    ("build", "described"),
    [
        (two_bleu_instances, ("bleu_input", 2)),
        (one_pointwise_instance, ("pointwise_metric_input", 1)),
        (one_comet_instance, ("comet_input", 1)),
        (new_style, ("metrics", 1)),
        (m.EvaluateInstancesRequest, ("none", 0)),
    ],
)
def test_describe(build: Any, described: tuple[str, int]) -> None:
    request = build()
    assert EVALUATOR.describe(request, request.WhichOneof("metric_inputs")) == described


def test_has_field() -> None:
    assert has_field(m.BleuInput.DESCRIPTOR, "instances")
    assert not has_field(m.PointwiseMetricInput.DESCRIPTOR, "instances")
