"""Print a normalised JSON description of the EvaluationService message closure.

Run as a script, never imported by the test process: ``official`` loads the descriptors of
google-cloud-aiplatform and ``ours`` those of ``evald_proto``; the two cannot share a process
(they register the same protobuf symbols).

    python dump_descriptors.py official|ours < extra.json
        ->  {"v1beta1": {"messages": ..., "enums": ..., "closure": [...]}, "v1": ...}

``messages`` holds the full closure of the roots (nested types, map entries and the well-known
types included). For ``ours`` it also holds every message our generated files declare, so one we
mirror but the roots no longer reach still gets compared; for ``official``, every message named on
stdin that the official package defines. ``closure`` lists the message names the roots reach.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import pkgutil
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

FDP = descriptor_pb2.FieldDescriptorProto
VERSIONS = ("v1beta1", "v1")
ROOTS = {
    "v1beta1": [
        "EvaluateInstancesRequest",
        "EvaluateInstancesResponse",
        "EvaluateDatasetRequest",
        "EvaluateDatasetResponse",
        "EvaluateDatasetOperationMetadata",
        "GenerateInstanceRubricsRequest",
        "GenerateInstanceRubricsResponse",
    ],
    "v1": ["EvaluateInstancesRequest", "EvaluateInstancesResponse"],
}
LABELS = {
    FDP.LABEL_OPTIONAL: "optional",
    FDP.LABEL_REPEATED: "repeated",
    FDP.LABEL_REQUIRED: "required",
}


def walk(msg: Descriptor) -> Iterator[Descriptor]:
    """A message and every message nested in it (map entries included)."""
    yield msg
    for nested in msg.nested_types:
        yield from walk(nested)


def closure(roots: Iterable[Descriptor]) -> tuple[dict[str, Descriptor], dict[str, EnumDescriptor]]:
    """Every message and enum reachable from ``roots`` through field types, by full name."""
    messages: dict[str, Descriptor] = {}
    enums: dict[str, EnumDescriptor] = {}
    stack = list(roots)
    while stack:
        msg = stack.pop()
        if msg.full_name in messages:
            continue
        messages[msg.full_name] = msg
        stack.extend(msg.nested_types)
        for enum in msg.enum_types:
            enums[enum.full_name] = enum
        for field in msg.fields:
            if field.message_type is not None:
                stack.append(field.message_type)
            if field.enum_type is not None:
                enums[field.enum_type.full_name] = field.enum_type
    return messages, enums


def describe_field(field: FieldDescriptor, proto: descriptor_pb2.FieldDescriptorProto) -> Any:
    target = field.message_type or field.enum_type
    oneof = field.containing_oneof
    return {
        "name": field.name,
        "number": field.number,
        "type": FDP.Type.Name(proto.type),
        "type_name": target.full_name if target is not None else "",
        "label": LABELS[proto.label],
        # Real oneofs only: a proto3 `optional` field sits in a synthetic oneof of its own.
        "oneof": oneof.name if oneof is not None and not proto.proto3_optional else None,
        "proto3_optional": proto.proto3_optional,
        "json_name": field.json_name,
        "map": bool(field.message_type is not None and field.message_type.GetOptions().map_entry),
        "deprecated": proto.options.deprecated,
    }


def describe_message(msg: Descriptor) -> Any:
    proto = descriptor_pb2.DescriptorProto()
    msg.CopyToProto(proto)
    by_name = {f.name: f for f in proto.field}
    synthetic = {
        f.oneof_index for f in proto.field if f.proto3_optional and f.HasField("oneof_index")
    }
    return {
        "fields": [describe_field(f, by_name[f.name]) for f in msg.fields],
        "oneofs": [o.name for i, o in enumerate(msg.oneofs) if i not in synthetic],
        "map_entry": msg.GetOptions().map_entry,
    }


def describe_enum(enum: EnumDescriptor) -> Any:
    return {"values": [[v.name, v.number] for v in enum.values]}


def official(version: str, extra: list[str]) -> tuple[list[Descriptor], list[Descriptor]]:
    types = importlib.import_module(f"google.cloud.aiplatform_{version}.types.evaluation_service")
    pool = descriptor_pool.Default()
    found = []
    for name in extra:  # messages we declare that the roots may not reach
        with contextlib.suppress(KeyError):
            found.append(pool.FindMessageTypeByName(name))
    return [getattr(types, name).pb().DESCRIPTOR for name in ROOTS[version]], found


def ours(version: str, extra: list[str]) -> tuple[list[Descriptor], list[Descriptor]]:
    package = importlib.import_module(f"evald_proto.aiplatform.{version}")
    declared: list[Descriptor] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.endswith("_pb2"):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            declared.extend(module.DESCRIPTOR.message_types_by_name.values())
    service = importlib.import_module(f"{package.__name__}.evaluation_service_pb2")
    roots = [service.DESCRIPTOR.message_types_by_name[name] for name in ROOTS[version]]
    return roots, declared


def dump(side: str, extra: dict[str, list[str]]) -> dict[str, Any]:
    loader = {"official": official, "ours": ours}[side]
    out: dict[str, Any] = {}
    for version in VERSIONS:
        roots, declared = loader(version, extra.get(version, []))
        messages, enums = closure([*roots, *declared])
        closed, _ = closure(roots)
        out[version] = {
            "messages": {name: describe_message(m) for name, m in sorted(messages.items())},
            "enums": {name: describe_enum(e) for name, e in sorted(enums.items())},
            "closure": sorted(closed),
        }
    return out


if __name__ == "__main__":
    # stdin: optional {"<version>": [full names]} of extra messages to describe when they exist.
    wanted = json.loads(sys.stdin.read() or "{}")
    json.dump(dump(sys.argv[1], wanted), sys.stdout, sort_keys=True)
