"""Server reflection the way grpcurl and ghz use it, both reflection protocol versions.

The client side here never imports evald's generated code: every message class is built from the
file descriptors the server sends, in a fresh ``DescriptorPool``, as ``ghz --call`` without
``--proto`` does. The reflection messages are the stock v1alpha classes; ``grpc.reflection.v1`` is
wire-identical to v1alpha (same messages and field numbers, only the package differs, see
grpc/grpc ``src/proto/grpc/reflection/v1/reflection.proto``), so they serve as v1 messages too.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha import reflection_pb2 as rpb
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

REFLECTION = {
    "v1": "grpc.reflection.v1.ServerReflection",
    "v1alpha": "grpc.reflection.v1alpha.ServerReflection",
}
API = {
    "v1beta1": "google.cloud.aiplatform.v1beta1.EvaluationService",
    "v1": "google.cloud.aiplatform.v1.EvaluationService",
}
PAIRS = [(r, a) for r in REFLECTION for a in API]

EXACT_MATCH = [
    # (prediction, reference, score by definition: 1 iff the strings are identical)
    ("Paris", "Paris", 1.0),
    ("Paris", "paris", 0.0),
    ("", "", 1.0),
    ("42", "42.0", 0.0),
]


def reflect(
    channel: grpc.Channel, version: str, requests: list[rpb.ServerReflectionRequest]
) -> list[rpb.ServerReflectionResponse]:
    """Send ``requests`` on one ServerReflectionInfo stream of the given protocol version."""
    info = channel.stream_stream(
        f"/{REFLECTION[version]}/ServerReflectionInfo",
        request_serializer=rpb.ServerReflectionRequest.SerializeToString,
        response_deserializer=rpb.ServerReflectionResponse.FromString,
    )
    return list(info(iter(requests), timeout=10))


def ask(channel: grpc.Channel, version: str, **request: Any) -> rpb.ServerReflectionResponse:
    (response,) = reflect(channel, version, [rpb.ServerReflectionRequest(**request)])
    return response


def files_of(response: rpb.ServerReflectionResponse) -> list[descriptor_pb2.FileDescriptorProto]:
    assert response.WhichOneof("message_response") == "file_descriptor_response", response
    return [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in response.file_descriptor_response.file_descriptor_proto
    ]


def pool_from(files: list[descriptor_pb2.FileDescriptorProto]) -> descriptor_pool.DescriptorPool:
    """A fresh pool holding ``files``, added dependencies first (fails if one is missing)."""
    pool = descriptor_pool.DescriptorPool()
    pending = {f.name: f for f in files}
    added: set[str] = set()
    while pending:
        ready = [f for f in pending.values() if set(f.dependency) <= added]
        assert ready, (
            f"unresolvable imports: { {n: list(f.dependency) for n, f in pending.items()} }"
        )
        for f in ready:
            pool.Add(f)
            added.add(f.name)
            del pending[f.name]
    return pool


def load_transitively(
    channel: grpc.Channel, version: str, symbol: str
) -> descriptor_pool.DescriptorPool:
    """Resolve ``symbol``, then ask by file name for any import not sent yet, like grpcurl."""
    files = {f.name: f for f in files_of(ask(channel, version, file_containing_symbol=symbol))}
    missing = {d for f in files.values() for d in f.dependency} - files.keys()
    while missing:
        for name in missing:
            for f in files_of(ask(channel, version, file_by_filename=name)):
                files.setdefault(f.name, f)
        missing = {d for f in files.values() for d in f.dependency} - files.keys()
    return pool_from(list(files.values()))


@pytest.mark.parametrize("version", REFLECTION)
def test_lists_services(channel: grpc.Channel, version: str) -> None:
    response = ask(channel, version, list_services="")
    names = {s.name for s in response.list_services_response.service}
    assert names >= {*API.values(), *REFLECTION.values(), "grpc.health.v1.Health"}


@pytest.mark.parametrize(("version", "api"), PAIRS)
def test_method_symbol_resolves_to_its_file_and_imports(
    channel: grpc.Channel, version: str, api: str
) -> None:
    files = files_of(ask(channel, version, file_containing_symbol=f"{API[api]}.EvaluateInstances"))
    first = files[0]
    assert first.package == f"google.cloud.aiplatform.{api}"
    services = {s.name: [m.name for m in s.method] for s in first.service}
    assert "EvaluateInstances" in services["EvaluationService"]
    # Every import, transitively, comes in the same response.
    names = {f.name for f in files}
    assert {d for f in files for d in f.dependency} <= names
    assert "google/protobuf/struct.proto" in names


@pytest.mark.parametrize("version", REFLECTION)
@pytest.mark.parametrize(
    ("symbol", "package"),
    [
        ("google.cloud.aiplatform.v1beta1.EvaluationService", "google.cloud.aiplatform.v1beta1"),
        (
            "google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest",
            "google.cloud.aiplatform.v1beta1",
        ),
        (
            "google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest.exact_match_input",
            "google.cloud.aiplatform.v1beta1",
        ),
        ("google.cloud.aiplatform.v1.ExactMatchInstance", "google.cloud.aiplatform.v1"),
        ("grpc.health.v1.Health.Check", "grpc.health.v1"),
        ("grpc.reflection.v1.ServerReflection.ServerReflectionInfo", "grpc.reflection.v1"),
    ],
)
def test_other_symbols_resolve(
    channel: grpc.Channel, version: str, symbol: str, package: str
) -> None:
    assert files_of(ask(channel, version, file_containing_symbol=symbol))[0].package == package


@pytest.mark.parametrize("version", REFLECTION)
@pytest.mark.parametrize(
    "symbol",
    [
        "google.cloud.aiplatform.v1beta1.EvaluationService.NoSuchMethod",
        "google.cloud.aiplatform.v1beta1.NoSuchService.EvaluateInstances",
        "no.such.Symbol",
        "",
    ],
)
def test_unknown_symbol_is_not_found(channel: grpc.Channel, version: str, symbol: str) -> None:
    response = ask(channel, version, file_containing_symbol=symbol)
    assert response.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
    assert response.original_request.file_containing_symbol == symbol


@pytest.mark.parametrize("version", REFLECTION)
def test_empty_request_is_invalid_argument(channel: grpc.Channel, version: str) -> None:
    response = ask(channel, version, host="h")
    assert response.error_response.error_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


@pytest.mark.parametrize("version", REFLECTION)
def test_one_stream_answers_in_order(channel: grpc.Channel, version: str) -> None:
    requests = [
        rpb.ServerReflectionRequest(list_services=""),
        rpb.ServerReflectionRequest(file_containing_symbol="no.such.Symbol"),
        rpb.ServerReflectionRequest(file_containing_symbol=f"{API['v1']}.EvaluateInstances"),
    ]
    responses = reflect(channel, version, requests)
    assert [r.original_request for r in responses] == requests
    assert [r.WhichOneof("message_response") for r in responses] == [
        "list_services_response",
        "error_response",
        "file_descriptor_response",
    ]


@pytest.mark.parametrize("version", REFLECTION)
def test_reflection_services_describe_themselves(channel: grpc.Channel, version: str) -> None:
    """grpcurl `describe` of a listed reflection service must work, v1 included."""
    for name in REFLECTION.values():
        pool = load_transitively(channel, version, name)
        service = pool.FindServiceByName(name)
        method = service.methods_by_name["ServerReflectionInfo"]
        assert method.client_streaming
        assert method.server_streaming
        # Same field numbers as the v1alpha messages this test speaks.
        for ours, stock in (
            (method.input_type, rpb.ServerReflectionRequest.DESCRIPTOR),
            (method.output_type, rpb.ServerReflectionResponse.DESCRIPTOR),
        ):
            assert {f.name: f.number for f in ours.fields} == {
                f.name: f.number for f in stock.fields
            }


def dynamic_exact_match(
    channel: grpc.Channel, pool: descriptor_pool.DescriptorPool, api: str
) -> list[float]:
    """Call EvaluateInstances with classes built from ``pool`` and a JSON body, like ghz -d."""
    method = pool.FindServiceByName(API[api]).methods_by_name["EvaluateInstances"]
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    assert request_class.DESCRIPTOR.file.pool is pool  # not evald's generated classes
    body = {
        "location": "projects/p/locations/us-central1",
        "exactMatchInput": {
            "metricSpec": {},
            "instances": [{"prediction": p, "reference": r} for p, r, _ in EXACT_MATCH],
        },
    }
    request = json_format.ParseDict(body, request_class())
    call = channel.unary_unary(
        f"/{API[api]}/EvaluateInstances",
        request_serializer=request_class.SerializeToString,
        response_deserializer=response_class.FromString,
    )
    response = json_format.MessageToDict(call(request, timeout=10))
    values = response["exactMatchResults"]["exactMatchMetricValues"]
    return [v["score"] for v in values]


@pytest.mark.parametrize(("version", "api"), PAIRS)
def test_call_built_only_from_reflection(channel: grpc.Channel, version: str, api: str) -> None:
    names = {s.name for s in ask(channel, version, list_services="").list_services_response.service}
    assert API[api] in names
    pool = load_transitively(channel, version, f"{API[api]}.EvaluateInstances")
    assert dynamic_exact_match(channel, pool, api) == [s for *_, s in EXACT_MATCH]


@pytest.fixture
def stock_pool(channel: grpc.Channel) -> descriptor_pool.DescriptorPool:
    """A pool backed by grpcio-reflection's own client (v1alpha)."""
    return descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))


@pytest.mark.parametrize("api", API)
def test_stock_reflection_client(
    channel: grpc.Channel, stock_pool: descriptor_pool.DescriptorPool, api: str
) -> None:
    method = stock_pool.FindMethodByName(f"{API[api]}.EvaluateInstances")
    assert method.input_type.full_name == f"google.cloud.aiplatform.{api}.EvaluateInstancesRequest"
    assert dynamic_exact_match(channel, stock_pool, api) == [s for *_, s in EXACT_MATCH]


def _fields(
    messages: Any,
) -> Any:
    """Every field of ``messages`` (DescriptorProtos) and of their nested messages."""
    for message in messages:
        yield from message.field
        yield from message.extension
        yield from _fields(message.nested_type)


def _lower_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@pytest.mark.parametrize("version", REFLECTION)
def test_described_fields_carry_their_json_names(channel: grpc.Channel, version: str) -> None:
    """grpcurl and ghz render JSON with the ``json_name`` the descriptors carry (the proto name
    when there is none): every field served has it, lowerCamel as the API documents."""
    files = files_of(ask(channel, version, file_containing_symbol=f"{API['v1beta1']}"))
    fields = [f for proto in files for f in [*_fields(proto.message_type), *proto.extension]]
    assert len(fields) > 100
    assert [f.name for f in fields if f.json_name != _lower_camel(f.name)] == []


def test_stock_reflection_client_renders_lower_camel_json(
    channel: grpc.Channel, stock_pool: descriptor_pool.DescriptorPool
) -> None:
    response_type = stock_pool.FindMessageTypeByName(
        "google.cloud.aiplatform.v1beta1.EvaluateInstancesResponse"
    )
    database = ProtoReflectionDescriptorDatabase(channel)
    served = database.FindFileContainingSymbol(response_type.full_name)
    (described,) = [m for m in served.message_type if m.name == "EvaluateInstancesResponse"]
    named = {f.name: f.json_name for f in described.field}
    assert named["exact_match_results"] == "exactMatchResults"
    response = json_format.ParseDict(
        {"exactMatchResults": {"exactMatchMetricValues": [{"score": 1.0}]}},
        message_factory.GetMessageClass(response_type)(),
    )
    assert json_format.MessageToDict(response) == {
        "exactMatchResults": {"exactMatchMetricValues": [{"score": 1.0}]}
    }
