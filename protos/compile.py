"""Compile the .proto files under protos/ into the generated ``evald_proto`` Python package.

Generated ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` land beside their .proto files.
Run with ``make proto``; CI runs it and fails if the committed output differs.

The comments of the .proto files (which generated Python leaves out) are collected into
``evald_proto/comments.json``: ``{full name of a message, field, enum or method: comment}``, for
the descriptions of the gateway's OpenAPI document.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

import google.api
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "evald_proto"
INIT = '"""Generated protobuf and gRPC modules of evald; see protos/. Do not edit."""\n'


COMMENTS = "comments.json"

# Field numbers of the descriptor protos, as SourceCodeInfo paths spell a declaration.
_FILE_MESSAGES, _FILE_ENUMS, _FILE_SERVICES = 4, 5, 6
_MESSAGE_FIELDS, _MESSAGE_NESTED, _MESSAGE_ENUMS = 2, 3, 4
_ENUM_VALUES, _SERVICE_METHODS = 2, 2


def file_comments(file: descriptor_pb2.FileDescriptorProto) -> dict[str, str]:
    """The leading comment of every message, field, enum, enum value, service and method of
    ``file`` that has one, by full name."""
    names: dict[tuple[int, ...], str] = {}

    def enum(path: tuple[int, ...], desc: descriptor_pb2.EnumDescriptorProto, scope: str) -> None:
        names[path] = f"{scope}.{desc.name}"
        for i, value in enumerate(desc.value):
            names[(*path, _ENUM_VALUES, i)] = f"{scope}.{desc.name}.{value.name}"

    def message(path: tuple[int, ...], desc: descriptor_pb2.DescriptorProto, scope: str) -> None:
        full = f"{scope}.{desc.name}"
        names[path] = full
        for i, field in enumerate(desc.field):
            names[(*path, _MESSAGE_FIELDS, i)] = f"{full}.{field.name}"
        for i, nested in enumerate(desc.nested_type):
            message((*path, _MESSAGE_NESTED, i), nested, full)
        for i, inner in enumerate(desc.enum_type):
            enum((*path, _MESSAGE_ENUMS, i), inner, full)

    for i, msg in enumerate(file.message_type):
        message((_FILE_MESSAGES, i), msg, file.package)
    for i, top in enumerate(file.enum_type):
        enum((_FILE_ENUMS, i), top, file.package)
    for i, service in enumerate(file.service):
        full = f"{file.package}.{service.name}"
        names[(_FILE_SERVICES, i)] = full
        for j, method in enumerate(service.method):
            names[(_FILE_SERVICES, i, _SERVICE_METHODS, j)] = f"{full}.{method.name}"
    comments: dict[str, str] = {}
    for location in file.source_code_info.location:
        name = names.get(tuple(location.path))
        text = "\n".join(line.removeprefix(" ") for line in location.leading_comments.split("\n"))
        if name is not None and text.strip():
            comments[name] = text.strip()
    return comments


def main() -> int:
    well_known = str(resources.files("grpc_tools") / "_proto")
    common = str(Path(next(iter(google.api.__path__))).parent.parent)  # googleapis-common-protos
    for old in PACKAGE.rglob("*_pb2*.py*"):
        old.unlink()
    (PACKAGE / COMMENTS).unlink(missing_ok=True)
    sources = sorted(str(p.relative_to(HERE)) for p in PACKAGE.rglob("*.proto"))
    args = [
        "grpc_tools.protoc",
        f"-I{HERE}",
        f"-I{common}",
        f"-I{well_known}",
        f"--python_out={HERE}",
        f"--pyi_out={HERE}",
        f"--grpc_python_out={HERE}",
        *sources,
    ]
    with tempfile.TemporaryDirectory() as shim:
        # googleapis-common-protos ships google/longrunning/operations.proto under another file
        # name (operations_proto.proto) but registers it under this one: give protoc that name.
        target = Path(shim) / "google" / "longrunning" / "operations.proto"
        target.parent.mkdir(parents=True)
        shutil.copy(Path(common) / "google" / "longrunning" / "operations_proto.proto", target)
        descriptors = Path(shim) / "descriptors.binpb"
        source_info = [f"--descriptor_set_out={descriptors}", "--include_source_info"]
        code = protoc.main([*args[:1], f"-I{shim}", *source_info, *args[1:]])
        if code != 0:
            return int(code)
        files = descriptor_pb2.FileDescriptorSet.FromString(descriptors.read_bytes()).file
    comments = {name: text for f in files for name, text in file_comments(f).items()}
    (PACKAGE / COMMENTS).write_text(
        json.dumps(dict(sorted(comments.items())), indent=0, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    for grpc_module in PACKAGE.rglob("*_pb2_grpc.py"):
        if "class " not in grpc_module.read_text():  # no service in that file
            grpc_module.unlink()
    for folder in {PACKAGE, *(p.parent for p in PACKAGE.rglob("*.proto"))}:
        while True:
            (folder / "__init__.py").write_text(INIT)
            if folder == PACKAGE:
                break
            folder = folder.parent
    (PACKAGE / "py.typed").write_text("")
    return 0


if __name__ == "__main__":
    sys.exit(main())
