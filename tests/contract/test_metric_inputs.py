"""Every metric the request can carry is either served or explicitly pending, never both.

Parametrized over the members of ``EvaluateInstancesRequest.metric_inputs`` read from the
descriptor, so a new member of the API (after ``make proto-sync``) or a new metric module gets
checked without touching this file.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from evald import api
from evald.metrics.base import Metric
from evald.metrics.catalog import PENDING, builtin
from evald.metrics.computed.base import ComputedMetric
from google.protobuf.descriptor import FieldDescriptor

from tests.support import MESSAGES, stub

MEMBERS = [field.name for field in api.METRIC_INPUTS.fields]
RESULTS = {field.name for field in api.EVALUATION_RESULTS.fields}
INPUTS = builtin().inputs
SERVED = sorted(INPUTS)
COMPUTED = sorted(builtin().computed_inputs())
LOCATION = "projects/p/locations/us-central1"


def versions_with(member: str) -> list[str]:
    """The API versions whose request has this metric input."""
    return [
        version
        for version, module in MESSAGES.items()
        if member in module.EvaluateInstancesRequest.DESCRIPTOR.fields_by_name
    ]


@pytest.mark.parametrize("member", MEMBERS)
def test_member_is_served_or_pending(member: str) -> None:
    served, reason = member in INPUTS, PENDING.get(member)
    assert served or reason is not None, f"{member}: no metric serves it and not in PENDING"
    assert not (served and reason is not None), f"{member}: a metric serves it but it is PENDING"
    if reason is not None:
        assert reason.strip(), f"{member}: PENDING without a reason"


def test_pending_names_only_real_members() -> None:
    assert sorted(set(PENDING) - set(MEMBERS)) == []


def test_at_least_the_first_metric_is_served() -> None:
    assert "exact_match_input" in SERVED


@pytest.mark.parametrize("member", SERVED)
def test_metric_fields_exist(member: str) -> None:
    metric: Metric = INPUTS[member]
    assert metric.input_field == member
    assert metric.result_field in RESULTS, metric.result_field
    # The result field's type is what the metric builds.
    expected = api.RESPONSE.fields_by_name[metric.result_field].message_type
    assert expected is not None
    assert metric.result_class().DESCRIPTOR.full_name == expected.full_name


@pytest.mark.parametrize("member", COMPUTED)
def test_computed_result_has_one_repeated_scored_field(member: str) -> None:
    result = INPUTS[member].result_class().DESCRIPTOR
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
    metric = INPUTS[member]
    assert isinstance(metric, ComputedMetric)
    result = metric.build_result([0.0, 1.0])
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
    (spec, metric)
    for spec, metric in sorted(builtin().specs.items())
    if isinstance(metric, ComputedMetric)
]


@pytest.mark.parametrize(("spec", "metric"), DECLARED, ids=[name for name, _ in DECLARED])
def test_a_declared_spec_is_a_metric_spec_of_the_same_shape(
    spec: str, metric: ComputedMetric[Any]
) -> None:
    """A computed metric's own spec (``bleu_spec``) is a ``Metric.metric_spec`` member with the
    fields of its input's ``metric_spec``: one parser serves both."""
    spec_member: Any = api.messages.Metric.DESCRIPTOR.fields_by_name[spec]
    own: Any = api.REQUEST.fields_by_name[metric.input_field].message_type
    assert spec_member.containing_oneof.name == "metric_spec"
    assert [f.name for f in spec_member.message_type.fields] == [
        f.name for f in own.fields_by_name["metric_spec"].message_type.fields
    ]


def test_declared_computation_types_exist() -> None:
    kinds = api.messages.ComputationBasedMetricSpec.ComputationBasedMetricType.keys()
    declared = set(builtin().computation_types)
    assert {"EXACT_MATCH", "BLEU", "ROUGE"} <= declared <= set(kinds)
