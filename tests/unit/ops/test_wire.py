"""Counting messages on the wire: exact on real requests, and a request that would parse into
too many messages for its size is refused before it is parsed."""

from __future__ import annotations

from typing import Any

import pytest
from evald import api
from evald.ops.limits import RequestLimits, SizeLimitExceeded
from evald.ops.wire import count_messages
from hypothesis import given, settings
from hypothesis import strategies as st

m: Any = api.messages
REQUEST = m.EvaluateInstancesRequest.DESCRIPTOR


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def empty_instances(count: int) -> bytes:
    """``exact_match_input`` holding ``count`` empty instances, as the wire has them."""
    inner = b"\x12\x00" * count
    return b"\x12" + varint(len(inner)) + inner


def parsed_count(message: Any) -> int:
    return (
        1
        + sum(
            parsed_count(item)
            for field, value in message.ListFields()
            if field.message_type is not None
            for item in (
                value.values()
                if field.message_type.GetOptions().map_entry
                else (value if field.is_repeated else [value])
            )
            if not isinstance(item, str | bytes | int | float)
        )
        + sum(
            len(value)
            for field, value in message.ListFields()
            if field.message_type is not None and field.message_type.GetOptions().map_entry
        )
    )


def sample_requests() -> list[Any]:
    instance = m.EvaluationInstance()
    content = instance.prompt.contents.contents.add()
    content.parts.add(text="a")
    content.parts.add(text="b")
    instance.other_data.map_instance["k"].text = "v"
    return [
        m.EvaluateInstancesRequest(),
        m.EvaluateInstancesRequest(
            exact_match_input={"instances": [{"prediction": "a", "reference": "a"}] * 3}
        ),
        m.EvaluateInstancesRequest(
            instance=instance,
            metrics=[{"bleu_spec": {}}, {"rouge_spec": {"rouge_type": "rougeL"}}],
        ),
        m.EvaluateInstancesRequest(
            trajectory_exact_match_input={
                "instances": [
                    {
                        "predicted_trajectory": {"tool_calls": [{"tool_name": "f"}] * 2},
                        "reference_trajectory": {"tool_calls": [{"tool_name": "f"}]},
                    }
                ]
            }
        ),
    ]


@pytest.mark.parametrize("request_", sample_requests())
def test_counts_what_parsing_builds(request_: Any) -> None:
    assert count_messages(request_.SerializeToString(), REQUEST, 10**9) == parsed_count(request_)


def test_counting_stops_past_the_budget() -> None:
    assert count_messages(empty_instances(1000), REQUEST, 50) == 51


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_garbage_ends_the_count(data: bytes) -> None:
    assert count_messages(data, REQUEST, 10**6) >= 1


LIMITS = RequestLimits(max_instances=100, max_template_bytes=1000, max_code_bytes=1000)


def test_empty_instances_are_refused_before_parsing() -> None:
    raw = empty_instances(10_000)  # 20 KB that would parse into 10,000 messages
    with pytest.raises(SizeLimitExceeded) as caught:
        LIMITS.check_wire(raw, REQUEST)
    assert caught.value.limit == "max_instances"
    assert "messages" in caught.value.message


def test_a_request_of_real_instances_passes() -> None:
    request = m.EvaluateInstancesRequest(
        exact_match_input={"instances": [{"prediction": "p" * 20, "reference": "r" * 20}] * 100}
    )
    assert LIMITS.walks(request.ByteSize())
    LIMITS.check_wire(request.SerializeToString(), REQUEST)
