"""Compile the .proto files under protos/ into the generated ``evald_proto`` Python package.

Generated ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` land beside their .proto files.
Run with ``make proto``; CI runs it and fails if the committed output differs.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

import google.api
from grpc_tools import protoc

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "evald_proto"
INIT = '"""Generated protobuf and gRPC modules of evald; see protos/. Do not edit."""\n'


def main() -> int:
    well_known = str(resources.files("grpc_tools") / "_proto")
    common = str(Path(next(iter(google.api.__path__))).parent.parent)  # googleapis-common-protos
    for old in PACKAGE.rglob("*_pb2*.py*"):
        old.unlink()
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
        code = protoc.main([*args[:1], f"-I{shim}", *args[1:]])
    if code != 0:
        return int(code)
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
