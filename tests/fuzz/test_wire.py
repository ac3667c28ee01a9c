"""Fuzzing both transports of a real server: random and mutated protobuf bytes over gRPC, random
paths, methods and bodies over HTTP. Every answer is a proper status (never INTERNAL or
UNKNOWN, never an HTTP 500 or a non-JSON body), and the server stays healthy."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.http_support import http_serving, http_url
from tests.support import MESSAGES, ServerThread

FUZZ = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
BAD_CODES = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}
METHODS = [
    "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances",
    "/google.cloud.aiplatform.v1.EvaluationService/EvaluateInstances",
]
m = MESSAGES["v1beta1"]
TOOL = json.dumps({"content": "", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]})
SEEDS: list[dict[str, Any]] = [
    {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}},
    {"bleuInput": {"metricSpec": {}, "instances": [{"prediction": "a b", "reference": "a b"}]}},
    {"rougeInput": {"metricSpec": {"rougeType": "rougeL"}, "instances": [{"prediction": "a"}]}},
    {"toolCallValidInput": {"instances": [{"prediction": TOOL}]}},
    {"toolParameterKvMatchInput": {"instances": [{"prediction": TOOL, "reference": TOOL}]}},
    {
        "trajectoryPrecisionInput": {
            "instances": [
                {
                    "predictedTrajectory": {"toolCalls": [{"toolName": "f", "toolInput": "{}"}]},
                    "referenceTrajectory": {"toolCalls": [{"toolName": "f", "toolInput": "{}"}]},
                }
            ]
        }
    },
    {
        "pointwiseMetricInput": {
            "metricSpec": {"metricPromptTemplate": "Rate {response}"},
            "instance": {"jsonInstance": '{"response": "R"}'},
        }
    },
    {"metrics": [{"exactMatchSpec": {}}], "instance": {"response": {"text": "a"}}},
]
SEED_BYTES = [
    json_format.ParseDict(seed, m.EvaluateInstancesRequest()).SerializeToString() for seed in SEEDS
]


@pytest.fixture(scope="module")
def target() -> Iterator[ServerThread]:
    with http_serving() as server:
        yield server


@pytest.fixture(scope="module")
def channel(target: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(target.address) as ch:
        yield ch


@st.composite
def mutated(draw: Any) -> bytes:
    """A valid request with bytes flipped, cut, inserted or spliced from another."""
    data = bytearray(draw(st.sampled_from(SEED_BYTES)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "cut", "insert", "splice"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            data = data[:at] + data[at + draw(st.integers(1, 8)) :]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            data[at:at] = draw(st.sampled_from(SEED_BYTES))
    return bytes(data)


def call(channel: grpc.Channel, method: str, body: bytes) -> grpc.StatusCode:
    rpc = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
    try:
        rpc(body, timeout=30)
    except grpc.RpcError as err:
        return err.code()
    return grpc.StatusCode.OK


@FUZZ
@given(st.sampled_from(METHODS), st.binary(max_size=512) | mutated())
def test_grpc_bytes(channel: grpc.Channel, method: str, body: bytes) -> None:
    assert call(channel, method, body) not in BAD_CODES


texts = st.text(max_size=30) | st.sampled_from(["", " ", "{}", "null", "\u0000", "é" * 10])


@FUZZ
@given(
    st.builds(
        lambda prediction, reference, which: {
            which: {"instances": [{"prediction": prediction, "reference": reference}]}
        },
        texts,
        texts,
        st.sampled_from(
            [
                "exactMatchInput",
                "bleuInput",
                "rougeInput",
                "toolCallValidInput",
                "toolNameMatchInput",
                "toolParameterKeyMatchInput",
                "toolParameterKvMatchInput",
            ]
        ),
    )
)
def test_grpc_structured_texts(channel: grpc.Channel, request_json: dict[str, Any]) -> None:
    """Well-formed messages with hostile strings: OK or INVALID_ARGUMENT, nothing else."""
    body = json_format.ParseDict(request_json, m.EvaluateInstancesRequest()).SerializeToString()
    assert call(channel, METHODS[0], body) in (
        grpc.StatusCode.OK,
        grpc.StatusCode.INVALID_ARGUMENT,
    )


PATH_PIECES = [*"abcxyz019/:.-_~%*{}=?&;$+!@", "%2F", "%00", "%zz", "/v1beta1"]
path_chars = st.sampled_from(PATH_PIECES)
paths = st.one_of(
    st.lists(path_chars, max_size=30).map(lambda parts: "/" + "".join(parts)),
    st.sampled_from(
        [
            "/v1beta1/projects/p/locations/l:evaluateInstances",
            "/v1beta1:evaluateInstances",
            "/v1/projects/p/locations/l/:evaluateInstances",
        ]
    ).flatmap(lambda p: st.lists(path_chars, max_size=6).map(lambda s: p + "".join(s))),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=15,
)
bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.sampled_from(SEEDS).flatmap(
        lambda seed: st.integers(0, len(json.dumps(seed))).map(
            lambda cut: json.dumps(seed).encode()[:cut]
        )
    ),
    st.tuples(st.sampled_from(SEEDS), st.dictionaries(st.text(max_size=10), json_values)).map(
        lambda t: json.dumps({**t[0], **t[1]}).encode()
    ),
)


@FUZZ
@given(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]), paths, bodies)
@example("GET", "/?", b"")  # the redirect to the web UI, with an (empty) query
def test_http(target: ServerThread, method: str, path: str, body: bytes) -> None:
    url = http_url(target)
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    assert response.status < 500 or response.status in (501, 503, 504), (response.status, raw)
    if method == "HEAD":
        return
    page = path.split("?", 1)[0]  # the query does not change what the path serves
    if response.status < 400 and (page == "/" or page == "/ui" or page.startswith("/ui/")):
        return  # the web UI's pages (HTML, JavaScript) and the redirect to them
    data = json.loads(raw)  # always JSON, never an HTML error page
    if response.status >= 400:
        assert set(data["error"]) >= {"code", "message", "status"}
        assert data["error"]["code"] == response.status


def test_still_healthy_after_fuzzing(channel: grpc.Channel) -> None:
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    assert call(channel, METHODS[0], SEED_BYTES[0]) == grpc.StatusCode.OK
