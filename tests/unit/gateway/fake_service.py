"""A made-up service with http rules, compiled at test time into its own descriptor pool.

Shows the gateway routes an RPC it has never seen, with no route code.
"""

from __future__ import annotations

from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pb2, descriptor_pool


def _add(pool: descriptor_pool.DescriptorPool, module: Any) -> None:
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    pool.Add(proto)


def build() -> Any:
    """The ``test.things.v1.Things`` service descriptor."""
    pool = descriptor_pool.DescriptorPool()
    for module in (descriptor_pb2, http_pb2, annotations_pb2):
        _add(pool, module)
    f = descriptor_pb2.FileDescriptorProto(
        name="test/things.proto",
        package="test.things.v1",
        syntax="proto3",
        dependency=["google/api/annotations.proto"],
    )
    string = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
    message = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
    optional = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    inner = f.message_type.add(name="Inner")
    inner.field.add(name="shelf_id", number=1, type=string, label=optional, json_name="shelfId")
    thing = f.message_type.add(name="Thing")
    thing.field.add(name="name", number=1, type=string, label=optional, json_name="name")
    thing.field.add(
        name="display_name", number=2, type=string, label=optional, json_name="displayName"
    )
    request = f.message_type.add(name="GetThingRequest")
    request.field.add(name="name", number=1, type=string, label=optional, json_name="name")
    request.field.add(
        name="inner",
        number=2,
        type=message,
        type_name=".test.things.v1.Inner",
        label=optional,
        json_name="inner",
    )
    request.field.add(
        name="thing",
        number=3,
        type=message,
        type_name=".test.things.v1.Thing",
        label=optional,
        json_name="thing",
    )
    service = f.service.add(name="Things")
    get = service.method.add(
        name="GetThing",
        input_type=".test.things.v1.GetThingRequest",
        output_type=".test.things.v1.Thing",
    )
    rule = get.options.Extensions[annotations_pb2.http]
    rule.get = "/v1/{name=things/*}"
    rule.additional_bindings.add(get="/v1/shelves/{inner.shelf_id}/{name=**}")
    update = service.method.add(
        name="UpdateThing",
        input_type=".test.things.v1.GetThingRequest",
        output_type=".test.things.v1.Thing",
    )
    rule = update.options.Extensions[annotations_pb2.http]
    rule.patch = "/v1/{name=things/*}"
    rule.body = "thing"
    custom = rule.additional_bindings.add(body="*")
    custom.custom.kind = "PURGE"
    custom.custom.path = "/v1/{name=things/*}:purge"
    pool.Add(f)
    return pool.FindServiceByName("test.things.v1.Things")
