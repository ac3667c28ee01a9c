"""Every metric the request can carry is either handled or explicitly pending, never both.

Parametrized over the members of ``EvaluateInstancesRequest.metric_inputs`` read from the
descriptor, so a new member of the API (after ``make proto-sync``) or a new handler module gets
checked without touching this file.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from evald import api
from evald.metrics.base import ComputedMetric, Handler
from evald.metrics.registry import PENDING, handlers
from google.protobuf.descriptor import FieldDescriptor

from tests.support import MESSAGES, stub

MEMBERS = [field.name for field in api.METRIC_INPUTS.fields]
RESULTS = {field.name for field in api.EVALUATION_RESULTS.fields}
HANDLED = sorted(handlers())
COMPUTED = sorted(name for name, h in handlers().items() if isinstance(h, ComputedMetric))
LOCATION = "projects/p/locations/us-central1"


def versions_with(member: str) -> list[str]:
    """The API versions whose request has this metric input."""
    return [
        version
        for version, module in MESSAGES.items()
        if member in module.EvaluateInstancesRequest.DESCRIPTOR.fields_by_name
    ]


@pytest.mark.parametrize("member", MEMBERS)
def test_member_is_handled_or_pending(member: str) -> None:
    handled, reason = member in handlers(), PENDING.get(member)
    assert handled or reason is not None, f"{member}: no handler and not in PENDING"
    assert not (handled and reason is not None), f"{member}: has a handler but is still PENDING"
    if reason is not None:
        assert reason.strip(), f"{member}: PENDING without a reason"


def test_pending_names_only_real_members() -> None:
    assert sorted(set(PENDING) - set(MEMBERS)) == []


def test_at_least_the_first_metric_is_handled() -> None:
    assert "exact_match_input" in HANDLED


@pytest.mark.parametrize("member", HANDLED)
def test_handler_fields_exist(member: str) -> None:
    handler: Handler = handlers()[member]
    assert handler.input_field == member
    assert handler.result_field in RESULTS, handler.result_field
    # The result field's type is what the handler builds.
    expected = api.RESPONSE.fields_by_name[handler.result_field].message_type
    assert expected is not None
    assert handler.result_class().DESCRIPTOR.full_name == expected.full_name


@pytest.mark.parametrize("member", COMPUTED)
def test_computed_result_has_one_repeated_scored_field(member: str) -> None:
    handler = handlers()[member]
    result = handler.result_class().DESCRIPTOR
    repeated = [f for f in result.fields if f.is_repeated]
    assert len(repeated) == 1, [f.name for f in repeated]
    (values,) = repeated
    assert values.type == FieldDescriptor.TYPE_MESSAGE
    assert values.message_type is not None
    score = values.message_type.fields_by_name.get("score")
    assert score is not None, f"{values.message_type.full_name} has no score"
    assert score.type == FieldDescriptor.TYPE_FLOAT
    assert score.has_presence, f"{values.message_type.full_name}.score has no presence"


@pytest.mark.parametrize("member", COMPUTED)
def test_computed_result_sets_zero_scores(member: str) -> None:
    """A 0.0 score is still present on the wire (the SDKs read a missing one as NaN)."""
    handler: Any = handlers()[member]
    result = handler.build_result([0.0, 1.0])
    (values_field,) = result.DESCRIPTOR.fields
    values = getattr(result, values_field.name)
    assert [v.score for v in values] == [0.0, 1.0]
    assert all(v.HasField("score") for v in values)
    wire = type(result).FromString(result.SerializeToString())
    assert getattr(wire, values_field.name)[0].HasField("score")


PENDING_CASES = [
    pytest.param(member, version, id=f"{member}-{version}")
    for member in MEMBERS
    if member in PENDING
    for version in versions_with(member)
]


@pytest.mark.parametrize(("member", "version"), PENDING_CASES)
def test_pending_member_is_unimplemented_over_grpc(
    channel: grpc.Channel, member: str, version: str
) -> None:
    request = MESSAGES[version].EvaluateInstancesRequest(location=LOCATION)
    getattr(request, member).SetInParent()
    assert request.WhichOneof("metric_inputs") == member
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel, version).EvaluateInstances(request, timeout=10)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert member in error.details()


DECLARED = [
    (name, handler)
    for name, handler in sorted(handlers().items())
    if isinstance(handler, ComputedMetric) and handler.spec_field is not None
]


@pytest.mark.parametrize(("member", "metric"), DECLARED, ids=[name for name, _ in DECLARED])
def test_a_declared_spec_is_a_metric_spec_of_the_same_shape(
    member: str, metric: ComputedMetric[Any]
) -> None:
    """A computed metric's own spec (``bleu_spec``) is a ``Metric.metric_spec`` member with the
    fields of its input's ``metric_spec``: one parser serves both."""
    assert metric.spec_field is not None
    spec_member: Any = api.messages.Metric.DESCRIPTOR.fields_by_name[metric.spec_field]
    own: Any = api.REQUEST.fields_by_name[member].message_type
    assert spec_member.containing_oneof.name == "metric_spec"
    assert [f.name for f in spec_member.message_type.fields] == [
        f.name for f in own.fields_by_name["metric_spec"].message_type.fields
    ]


def test_declared_computation_types_exist() -> None:
    kinds = api.messages.ComputationBasedMetricSpec.ComputationBasedMetricType.keys()
    declared = [h.computation_type for h in handlers().values() if isinstance(h, ComputedMetric)]
    assert {"EXACT_MATCH", "BLEU", "ROUGE"} <= {k for k in declared if k} <= set(kinds)
