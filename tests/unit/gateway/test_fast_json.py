"""evald.gateway.fast_json against google.protobuf.json_format, the reference.

Every case is run through both; the messages (or the exceptions, type and text) must be equal.
Inputs are generated from the descriptors of the served request and response messages: right
and wrong JSON types for every field kind, nulls, unknown keys, camelCase and snake_case keys
for the same field, two members of one oneof, numbers at and beyond their limits, unpaired
surrogates, deep nesting.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
from evald.gateway import fast_json
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REQUEST = messages.EvaluateInstancesRequest
RESPONSE = messages.EvaluateInstancesResponse

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "NaN", "Infinity", "-Infinity", "1", "1.5", "true", "\ud800", "x y"]),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
)
"""Any JSON value (and a few Python ones json.loads can produce), right or wrong for a field."""

TRICKY_NUMBERS = st.sampled_from(
    [0, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 0.0, -0.0, 1.5, 3.0, 1e39, -1e39,
     3.4028234663852886e38, 1e-50, 2**53 + 1]
)  # fmt: skip


def _value(field: Any, depth: int) -> st.SearchStrategy[Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return st.one_of(st.dictionaries(st.text(max_size=3), JUNK, max_size=2), JUNK)
    if field.is_repeated:
        return st.one_of(st.lists(_single(field, depth), max_size=3), JUNK)
    return _single(field, depth)


def _single(field: Any, depth: int) -> st.SearchStrategy[Any]:
    cpp = field.cpp_type
    good: st.SearchStrategy[Any]
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        if depth <= 0 or field.message_type.full_name.startswith("google.protobuf."):
            return st.one_of(st.just({}), JUNK)
        return st.one_of(_object(field.message_type, depth - 1), JUNK)
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        good = st.text(max_size=8)
    elif cpp == FieldDescriptor.CPPTYPE_BOOL:
        good = st.booleans()
    elif cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        good = st.one_of(st.floats(allow_nan=False, allow_infinity=False), TRICKY_NUMBERS)
    elif cpp == FieldDescriptor.CPPTYPE_ENUM:
        good = st.one_of(st.sampled_from([v.name for v in field.enum_type.values]), st.integers())
    else:
        good = st.one_of(st.integers(min_value=-(2**40), max_value=2**40), TRICKY_NUMBERS)
    return st.one_of(good, good, good, JUNK)


def _object(descriptor: Any, depth: int) -> st.SearchStrategy[dict[str, Any]]:
    keys = [key for field in descriptor.fields for key in {field.name, field.json_name}] + [
        "unknownKey"
    ]
    by_key = {field.name: field for field in descriptor.fields}
    by_key.update({field.json_name: field for field in descriptor.fields})

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = draw(st.lists(st.sampled_from(keys), max_size=4, unique=True))
        return {
            key: draw(JUNK if key == "unknownKey" else _value(by_key[key], depth)) for key in chosen
        }

    return build()


def _metric_input_request(draw: st.DrawFn) -> dict[str, Any]:
    """A request with one metric input member (the shapes the gateway sees most)."""
    fields = [f for f in REQUEST.DESCRIPTOR.fields if f.containing_oneof is not None]
    field = draw(st.sampled_from(fields))
    key = draw(st.sampled_from([field.name, field.json_name]))
    body = draw(_object(field.message_type, 2))
    instances: list[dict[str, Any]] = draw(st.lists(_object(_instance_type(field), 1), max_size=3))
    keep: bool = draw(st.booleans())
    if instances and keep:
        body["instances"] = instances
    extra = draw(st.dictionaries(st.sampled_from(["location", "unknown"]), JUNK, max_size=1))
    return {key: body, **extra}


def _instance_type(field: Any) -> Any:
    instances = field.message_type.fields_by_name.get("instances")
    if instances is not None and instances.message_type is not None:
        return instances.message_type
    return field.message_type


def _outcome(parse: Any, data: Any) -> tuple[str, Any]:
    message = REQUEST()
    try:
        parse(data, message)
    except Exception as exc:  # the reference's own errors must be reproduced exactly
        return type(exc).__name__, str(exc)
    return "ok", message.SerializeToString(deterministic=True)


def _reference(data: Any, message: Message) -> None:
    json_format.ParseDict(data, message, ignore_unknown_fields=True)


def _assert_same_parse(data: Any) -> None:
    assert _outcome(fast_json.parse_dict, data) == _outcome(_reference, data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(_metric_input_request)())
def test_parse_equals_json_format_on_metric_inputs(data: dict[str, Any]) -> None:
    _assert_same_parse(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_object(REQUEST.DESCRIPTOR, 3))
def test_parse_equals_json_format_on_any_request_field(data: dict[str, Any]) -> None:
    _assert_same_parse(data)


PARSE_CASES = [
    {"bleuInput": {"instances": [{"prediction": "a b", "reference": "a c"}]}},
    {"bleu_input": {"metric_spec": {"use_effective_order": True}, "instances": []}},
    # Both spellings of one key: the later one wins in json_format (keys differ).
    {"rougeInput": {"metricSpec": {"useStemmer": True, "use_stemmer": False}}},
    # Two members of the metric_inputs oneof: json_format's error.
    {"bleuInput": {}, "rougeInput": {}},
    {"bleuInput": {"instances": [{"prediction": None}]}},
    {"bleuInput": {"instances": [None]}},
    {"bleuInput": {"instances": {"prediction": "x"}}},
    {"bleuInput": {"instances": [{"prediction": 5}]}},
    {"bleuInput": {"instances": [{"prediction": "\ud800"}]}},
    {"bleuInput": {"instances": [{"prediction": "\ud83d\ude00 ünïcode"}]}},
    {"bleuInput": "not an object"},
    {"rougeInput": {"metricSpec": {"rougeType": "rougeL", "splitSummaries": 1}}},
    {"pointwiseMetricInput": {"instance": {"jsonInstance": "{}"}}},
    {"toolCallValidInput": {"instances": [{"prediction": "{}", "reference": "{}"}]}},
    {"location": "projects/p/locations/l", "exactMatchInput": {"instances": []}},
]


@pytest.mark.parametrize("data", PARSE_CASES, ids=lambda d: json.dumps(d)[:60])
def test_parse_cases(data: dict[str, Any]) -> None:
    _assert_same_parse(data)


def test_hot_shapes_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shapes benchmarks and SDKs send never reach json_format (else nothing is gained)."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("json_format used")

    monkeypatch.setattr(json_format, "ParseDict", refuse)
    monkeypatch.setattr(json_format, "MessageToDict", refuse)
    data = {
        "location": "projects/p/locations/l",
        "rougeInput": {
            "metricSpec": {"rougeType": "rougeL", "useStemmer": True},
            "instances": [{"prediction": f"p {i}", "reference": f"r {i}"} for i in range(5)],
        },
    }
    message = REQUEST()
    fast_json.parse_dict(data, message)
    assert message.rouge_input.instances[4].reference == "r 4"
    response = RESPONSE()
    response.rouge_results.rouge_metric_values.add(score=0.25)
    assert fast_json.message_to_dict(response) == {
        "rougeResults": {"rougeMetricValues": [{"score": 0.25}]}
    }


def test_parse_into_a_non_empty_message_merges_as_json_format_does() -> None:
    ours, reference = REQUEST(location="x"), REQUEST(location="x")
    data = {"bleuInput": {"instances": [{"prediction": "a"}]}}
    fast_json.parse_dict(data, ours)
    _reference(data, reference)
    assert ours == reference


# Rendering ---------------------------------------------------------------------------------

FLOATS = st.one_of(
    st.floats(width=32),
    st.sampled_from([0.0, -0.0, 1.0, math.inf, -math.inf, math.nan, 1e-45, 3.4028234663852886e38]),
)


def _filled(descriptor: Any, depth: int) -> st.SearchStrategy[Message]:
    @st.composite
    def build(draw: st.DrawFn) -> Message:
        message = GetMessageClass(descriptor)()
        for field in descriptor.fields:
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                continue
            if not draw(st.booleans()):
                continue
            if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
                if depth <= 0 or field.message_type.full_name.startswith("google.protobuf."):
                    continue
                if field.is_repeated:
                    for _ in range(draw(st.integers(0, 2))):
                        getattr(message, field.name).add().MergeFrom(
                            draw(_filled(field.message_type, depth - 1))
                        )
                else:
                    getattr(message, field.name).MergeFrom(
                        draw(_filled(field.message_type, depth - 1))
                    )
                    getattr(message, field.name).SetInParent()
                continue
            value = draw(_scalar_value(field))
            if field.is_repeated:
                getattr(message, field.name).append(value)
            else:
                setattr(message, field.name, value)
        return message

    return build()


def _scalar_value(field: Any) -> st.SearchStrategy[Any]:
    cpp = field.cpp_type
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return FLOATS if cpp == FieldDescriptor.CPPTYPE_FLOAT else st.floats()
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        return st.binary(max_size=4) if field.type == FieldDescriptor.TYPE_BYTES else st.text()
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return st.booleans()
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return st.sampled_from([v.number for v in field.enum_type.values])
    if cpp in (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64):
        return st.integers(0, 2**62)
    return st.integers(0, 2**30)


def _same_json(a: Any, b: Any) -> bool:
    # NaN != NaN: compare the texts json.dumps makes (json_format renders NaN as "NaN" anyway).
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_filled(RESPONSE.DESCRIPTOR, 2), st.booleans())
def test_render_equals_json_format(message: Message, int_enums: bool) -> None:
    ours = fast_json.message_to_dict(message, int_enums=int_enums)
    reference = json_format.MessageToDict(message, use_integers_for_enums=int_enums)
    assert _same_json(ours, reference)


@pytest.mark.parametrize(
    "value", [0.0, -0.0, 0.1, 1 / 3, 0.9, 1e-45, -2.5, 3.4028234663852886e38, math.inf, math.nan]
)
def test_render_float_scores_like_json_format(value: float) -> None:
    message = RESPONSE()
    message.bleu_results.bleu_metric_values.add(score=value)
    message.bleu_results.bleu_metric_values.add(score=value)  # the second from the cache
    ours = fast_json.message_to_dict(message)
    reference = json_format.MessageToDict(message)
    assert _same_json(ours, reference)
    first = ours["bleuResults"]["bleuMetricValues"][0]["score"]
    if isinstance(first, float) and first == 0.0:  # the sign of zero survives the cache
        stored = message.bleu_results.bleu_metric_values[0].score
        assert struct.pack("<d", first) == struct.pack("<d", stored)
