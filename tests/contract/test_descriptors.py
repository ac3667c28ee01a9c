"""Our generated protos are the official ones, field by field, and the service is the real one.

The official package (google-cloud-aiplatform, dev-only) and ``evald_proto`` register the same
protobuf symbols, so the official side is described in a subprocess (``dump_descriptors.py``) and
only the JSON crosses over. Our side is described in this process, from the very modules the
server imports.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.api import annotations_pb2

from tests.contract import dump_descriptors

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VERSIONS = dump_descriptors.VERSIONS

OURS: dict[str, Any] = dump_descriptors.dump("ours", {})
"""Our side, computed at collection time so the counts can appear in the test ids."""

# Floors that keep the comparison honest: an empty or truncated dump on both sides would be "equal".
MIN_MESSAGES = {"v1beta1": 240, "v1": 130}
MIN_ENUMS = {"v1beta1": 15, "v1": 5}


def counted(version: str) -> Any:
    """A version parameter whose id carries the message and enum counts of our closure."""
    ours = OURS[version]
    return pytest.param(
        version, id=f"{version}-{len(ours['messages'])}msgs-{len(ours['enums'])}enums"
    )


@pytest.fixture(scope="module")
def official() -> dict[str, Any]:
    """The official description, with every message we declare looked up as well."""
    extra = {version: sorted(OURS[version]["messages"]) for version in VERSIONS}
    done = subprocess.run(
        [sys.executable, str(HERE / "dump_descriptors.py"), "official"],
        input=json.dumps(extra),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def field_differences(name: str, ours: Any, theirs: Any) -> list[str]:
    """Human-readable differences between two described messages."""
    problems: list[str] = []
    our_fields = {f["name"]: f for f in ours["fields"]}
    their_fields = {f["name"]: f for f in theirs["fields"]}
    for missing in sorted(their_fields.keys() - our_fields.keys()):
        problems.append(f"{name}.{missing}: missing from ours")
    for extra in sorted(our_fields.keys() - their_fields.keys()):
        problems.append(f"{name}.{extra}: not in the official message")
    for field in sorted(our_fields.keys() & their_fields.keys()):
        for key, value in our_fields[field].items():
            if their_fields[field][key] != value:
                problems.append(
                    f"{name}.{field}: {key} is {value!r}, officially {their_fields[field][key]!r}"
                )
    for key in ("oneofs", "map_entry"):
        if ours[key] != theirs[key]:
            problems.append(f"{name}: {key} is {ours[key]!r}, officially {theirs[key]!r}")
    if not problems and ours != theirs:  # field order, say
        problems.append(f"{name}: descriptions differ")
    return problems


@pytest.mark.parametrize("version", [counted(v) for v in VERSIONS])
def test_our_closure_is_big_enough(version: str) -> None:
    ours = OURS[version]
    assert len(ours["messages"]) >= MIN_MESSAGES[version], len(ours["messages"])
    assert len(ours["enums"]) >= MIN_ENUMS[version], len(ours["enums"])
    for root in dump_descriptors.ROOTS[version]:
        assert f"google.cloud.aiplatform.{version}.{root}" in ours["closure"]


@pytest.mark.parametrize("version", [counted(v) for v in VERSIONS])
def test_every_message_of_ours_equals_the_official_one(
    official: dict[str, Any], version: str
) -> None:
    ours, theirs = OURS[version]["messages"], official[version]["messages"]
    problems = [f"{name}: no such official message" for name in sorted(ours.keys() - theirs.keys())]
    for name in sorted(ours.keys() & theirs.keys()):
        problems.extend(field_differences(name, ours[name], theirs[name]))
    fields = sum(len(m["fields"]) for m in ours.values())
    assert not problems, f"{len(ours)} messages / {fields} fields compared:\n" + "\n".join(problems)


@pytest.mark.parametrize("version", [counted(v) for v in VERSIONS])
def test_every_official_message_is_mirrored(official: dict[str, Any], version: str) -> None:
    closure = official[version]["closure"]
    assert len(closure) >= MIN_MESSAGES[version]
    missing = sorted(set(closure) - OURS[version]["messages"].keys())
    assert not missing, (
        f"{len(missing)} of {len(closure)} official messages not mirrored: {missing}"
    )


@pytest.mark.parametrize("version", [counted(v) for v in VERSIONS])
def test_enums_are_equal_both_ways(official: dict[str, Any], version: str) -> None:
    ours, theirs = OURS[version]["enums"], official[version]["enums"]
    assert sorted(ours) == sorted(theirs), f"{len(ours)} ours vs {len(theirs)} official enums"
    differing = {name: (ours[name], theirs[name]) for name in ours if ours[name] != theirs[name]}
    assert not differing, f"{len(ours)} enums compared; values differ: {differing}"


def test_the_comparison_can_fail() -> None:
    """A changed json_name, oneof or number is reported (guards the differ itself)."""
    name = "google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest"
    original = OURS["v1beta1"]["messages"][name]
    for key, value in [("json_name", "x"), ("oneof", None), ("number", 999), ("map", True)]:
        changed = json.loads(json.dumps(original))
        changed["fields"][0][key] = value
        assert field_differences(name, changed, original), key


# --- the service -------------------------------------------------------------------------------

SERVICE_METHODS: dict[str, dict[str, tuple[str, str, str, list[str] | None]]] = {
    "v1beta1": {
        "EvaluateInstances": (
            "google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest",
            "google.cloud.aiplatform.v1beta1.EvaluateInstancesResponse",
            "/v1beta1/{location=projects/*/locations/*}:evaluateInstances",
            ["/v1beta1:evaluateInstances"],
        ),
        "EvaluateDataset": (
            "google.cloud.aiplatform.v1beta1.EvaluateDatasetRequest",
            "google.longrunning.Operation",
            "/v1beta1/{location=projects/*/locations/*}:evaluateDataset",
            None,  # COMPAT.md names no additional binding for it; not pinned
        ),
        "GenerateInstanceRubrics": (
            "google.cloud.aiplatform.v1beta1.GenerateInstanceRubricsRequest",
            "google.cloud.aiplatform.v1beta1.GenerateInstanceRubricsResponse",
            "/v1beta1/{location=projects/*/locations/*}:generateInstanceRubrics",
            ["/v1beta1:generateInstanceRubrics"],
        ),
    },
    "v1": {
        "EvaluateInstances": (
            "google.cloud.aiplatform.v1.EvaluateInstancesRequest",
            "google.cloud.aiplatform.v1.EvaluateInstancesResponse",
            "/v1/{location=projects/*/locations/*}:evaluateInstances",
            ["/v1:evaluateInstances"],
        ),
    },
}
SERVICE_CASES = [
    pytest.param(version, method, *spec, id=f"{version}-{method}")
    for version, methods in SERVICE_METHODS.items()
    for method, spec in methods.items()
]


def service_descriptor(version: str) -> Any:
    module = importlib.import_module(f"evald_proto.aiplatform.{version}.evaluation_service_pb2")
    return module.DESCRIPTOR.services_by_name["EvaluationService"]


@pytest.mark.parametrize("version", VERSIONS)
def test_service_has_exactly_the_official_methods(version: str) -> None:
    service = service_descriptor(version)
    assert service.full_name == f"google.cloud.aiplatform.{version}.EvaluationService"
    assert sorted(m.name for m in service.methods) == sorted(SERVICE_METHODS[version])


@pytest.mark.parametrize(
    ("version", "method", "request_type", "response_type", "post", "additional"), SERVICE_CASES
)
def test_method_types_and_http_rule(
    version: str,
    method: str,
    request_type: str,
    response_type: str,
    post: str,
    additional: list[str] | None,
) -> None:
    desc = service_descriptor(version).methods_by_name[method]
    assert desc.input_type.full_name == request_type
    assert desc.output_type.full_name == response_type
    rule = desc.GetOptions().Extensions[annotations_pb2.http]
    assert rule.WhichOneof("pattern") == "post"
    assert (rule.post, rule.body) == (post, "*")
    if additional is not None:
        assert [(b.post, b.body) for b in rule.additional_bindings] == [
            (path, "*") for path in additional
        ]


@pytest.mark.parametrize(
    ("version", "method", "request_type", "response_type", "post", "additional"), SERVICE_CASES
)
def test_method_path_is_served(
    channel: grpc.Channel,
    version: str,
    method: str,
    request_type: str,
    response_type: str,
    post: str,
    additional: list[str] | None,
) -> None:
    """The server answers at the official path (an empty request is refused, never 'not found')."""
    path = f"/google.cloud.aiplatform.{version}.EvaluationService/{method}"
    desc = service_descriptor(version).methods_by_name[method]
    assert f"/{desc.containing_service.full_name}/{desc.name}" == path
    call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
    with pytest.raises(grpc.RpcError) as raised:
        call(b"", timeout=10)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert "method not found" not in (error.details() or "").lower()


def test_unknown_method_is_distinguishable(channel: grpc.Channel) -> None:
    """Guards the check above: an unserved path is UNIMPLEMENTED with gRPC's own message."""
    call = channel.unary_unary(
        "/google.cloud.aiplatform.v1.EvaluationService/EvaluateDataset",
        request_serializer=None,
        response_deserializer=None,
    )
    with pytest.raises(grpc.RpcError) as raised:
        call(b"", timeout=10)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "method not found" in (error.details() or "").lower()


# --- independence from the official package ----------------------------------------------------

BLOCKED_IMPORT = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    class Block:
        # Any attempt to import the official SDK fails loudly.
        def find_spec(self, name, path=None, target=None):
            if name.startswith(("google.cloud.aiplatform", "vertexai")):
                raise ImportError("blocked: " + name)
            return None

    sys.meta_path.insert(0, Block())
    import evald_proto
    names = [i.name for i in pkgutil.walk_packages(evald_proto.__path__, "evald_proto.")]
    for name in names:
        importlib.import_module(name)
    import evald.server, evald.service, evald.metrics.catalog, evald_client
    evald.metrics.catalog.builtin()
    leaked = [m for m in sys.modules if m.startswith(("google.cloud.aiplatform", "vertexai"))]
    assert not leaked, leaked
    files = {
        m.__name__: m.DESCRIPTOR.name
        for m in map(sys.modules.get, names) if hasattr(m, "DESCRIPTOR")
    }
    import json
    print(json.dumps({"modules": names, "files": sorted(set(files.values()))}))
    """
)


def test_generated_code_never_needs_the_official_package() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORT],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout)
    for version in VERSIONS:
        for module in ("evaluation_service_pb2", "evaluation_service_pb2_grpc"):
            assert f"evald_proto.aiplatform.{version}.{module}" in imported["modules"]
    # Our descriptor files live under evald_proto/, never under the SDK's google/cloud/... paths.
    assert imported["files"]
    assert all(name.startswith("evald_proto/") for name in imported["files"]), imported["files"]


def test_no_package_of_ours_provides_google_cloud_aiplatform() -> None:
    for root in ("server", "client", "protos"):
        clashing = [
            p for p in (REPO / root).rglob("*.py") if "google" in p.relative_to(REPO / root).parts
        ]
        assert not clashing, clashing
