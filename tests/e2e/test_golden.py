"""Replays every ``tests/golden/**/*.json`` request over gRPC and checks the reply.

A golden file is ``{"description", "versions", "request", "response"}`` or, for a request that must
fail, ``"error": {"code": "INVALID_ARGUMENT", "field": "<first BadRequest violation path>"}``
instead of ``"response"``. Requests and responses are proto3 JSON; expected values are hand-worked
or from the reference library. Scores travel as 32-bit floats, so numbers compare with a tolerance.

A judge-backed case adds ``"judge": ["<answer>", ...]``: the server's judge is then a local fake
(``tests/fakes/judge_server.py``) that gives exactly these answers, in order, one per judge call,
and the expected values are worked by hand from them. The case must use every answer; a call
beyond them gets an unreadable answer, so the case fails.

``test_every_metric_has_a_golden_case`` holds the files to every metric the server serves.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.metrics.catalog import ROUTED_SPECS, builtin
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tests.support import MESSAGES, serving, stub

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FILES = sorted(GOLDEN.rglob("*.json"))
KEYS = {"description", "versions", "request"}
OPTIONAL = {"judge"}
REL, ABS = 1e-6, 1e-7
pytestmark = pytest.mark.usefixtures("golden_case_judge")


def load(path: Path) -> dict[str, Any]:
    """A golden file, checked for shape so a typo fails loudly instead of testing nothing."""
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert case.keys() >= KEYS, f"missing keys: {KEYS - case.keys()}"
    assert len({"response", "error"} & case.keys()) == 1, "exactly one of response / error"
    assert not case.keys() - KEYS - OPTIONAL - {"response", "error"}, "unknown keys"
    assert case["versions"], "no versions"
    assert set(case["versions"]) <= set(MESSAGES), case["versions"]
    if "error" in case:
        assert case["error"].keys() <= {"code", "field"}
        assert "code" in case["error"]
        assert case["error"]["code"] in grpc.StatusCode.__members__, case["error"]["code"]
    if "judge" in case:
        assert case["judge"], "no judge answers"
        assert all(isinstance(answer, str) for answer in case["judge"]), "answers are strings"
    return case


CASES = [
    pytest.param(path, version, id=f"{path.relative_to(GOLDEN).as_posix()}-{version}")
    for path in FILES
    for version in json.loads(path.read_text(encoding="utf-8")).get("versions", ["?"])
]


def differences(actual: Any, expected: Any, where: str = "$") -> list[str]:
    """Where two JSON values differ; numbers compare within float32 tolerance."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        problems = [f"{where}.{k}: missing" for k in sorted(expected.keys() - actual.keys())]
        problems += [f"{where}.{k}: unexpected" for k in sorted(actual.keys() - expected.keys())]
        for key in sorted(expected.keys() & actual.keys()):
            problems += differences(actual[key], expected[key], f"{where}.{key}")
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(actual)} items, expected {len(expected)}"]
        return [
            p
            for i, pair in enumerate(zip(actual, expected, strict=True))
            for p in differences(*pair, f"{where}[{i}]")
        ]
    if isinstance(expected, bool) or isinstance(actual, bool):
        same = type(actual) is type(expected) and actual == expected
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        same = math.isclose(actual, expected, rel_tol=REL, abs_tol=ABS)
    else:
        same = type(actual) is type(expected) and actual == expected
    return [] if same else [f"{where}: {actual!r}, expected {expected!r}"]


def as_dict(message: Any) -> Any:
    # Field names as in the .proto; set-but-zero optional fields (score: 0.0) are kept.
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def first_violation(error: Any) -> str | None:
    status = rpc_status.from_call(error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return bad.field_violations[0].field if bad.field_violations else None
    return None


@pytest.fixture(scope="module")
def channel() -> Iterator[grpc.Channel]:
    """A server of the golden cases (custom code on, for the ``custom_code_execution_spec``
    cases), and a channel to it."""
    with serving(custom_code=True) as server, grpc.insecure_channel(server.address) as ch:
        yield ch


def test_golden_files_exist() -> None:
    assert FILES, f"no golden files under {GOLDEN}"


@pytest.mark.parametrize(("path", "version"), CASES)
def test_golden(channel: grpc.Channel, path: Path, version: str) -> None:
    case = load(path)
    m = MESSAGES[version]
    request = json_format.Parse(
        json.dumps(case["request"]), m.EvaluateInstancesRequest(), ignore_unknown_fields=False
    )
    call = stub(channel, version).EvaluateInstances
    if "error" in case:
        with pytest.raises(grpc.RpcError) as raised:
            call(request, timeout=30)
        error: Any = raised.value
        assert error.code().name == case["error"]["code"], error.details()
        if "field" in case["error"]:
            assert first_violation(error) == case["error"]["field"], error.details()
        return
    response = call(request, timeout=30)
    expected = json_format.Parse(
        json.dumps(case["response"]), m.EvaluateInstancesResponse(), ignore_unknown_fields=False
    )
    problems = differences(as_dict(response), as_dict(expected))
    assert not problems, f"{case['description']}\n" + "\n".join(problems)


def test_differences_can_fail() -> None:
    assert differences({"a": [{"score": 0.5}]}, {"a": [{"score": 0.5000001}]}) == []
    assert differences({"a": [{"score": 0.5}]}, {"a": [{"score": 0.51}]})
    assert differences({"a": [{}]}, {"a": [{"score": 0.0}]}) == ["$.a[0].score: missing"]
    assert differences({"a": [1, 2]}, {"a": [1]})
    assert differences({"a": True}, {"a": 1})


def covered(path: Path) -> set[str]:
    """What a golden case exercises: ``input:<metric_inputs member>``, ``spec:<Metric.metric_spec
    member>`` and ``named:<metric_spec_name>`` for every metric of its request."""
    case = load(path)
    version = case["versions"][0]
    request = json_format.Parse(
        json.dumps(case["request"]), MESSAGES[version].EvaluateInstancesRequest()
    )
    found = set()
    if (member := request.WhichOneof("metric_inputs")) is not None:
        found.add(f"input:{member}")
    metrics = list(getattr(request, "metrics", []))
    metrics += [s.metric for s in getattr(request, "metric_sources", []) if s.HasField("metric")]
    for metric in metrics:
        if (spec := metric.WhichOneof("metric_spec")) is not None:
            found.add(f"spec:{spec}")
        if spec == "predefined_metric_spec":
            found.add(f"named:{metric.predefined_metric_spec.metric_spec_name}")
    return found


def test_every_metric_has_a_golden_case() -> None:
    """Every member of ``metric_inputs`` a metric serves has a case in ``golden/<input name
    without _input>/`` that uses it; every ``Metric.metric_spec`` member served and every named
    metric is used by at least one case."""
    by_folder: dict[str, set[str]] = {}
    for path in FILES:
        by_folder.setdefault(path.relative_to(GOLDEN).parts[0], set()).update(covered(path))
    everywhere = set().union(*by_folder.values())
    catalog = builtin()
    missing = [
        f"input:{name} (in golden/{name.removesuffix('_input')}/)"
        for name in sorted(catalog.inputs)
        if f"input:{name}" not in by_folder.get(name.removesuffix("_input"), set())
    ]
    specs = sorted({*catalog.specs, *ROUTED_SPECS})
    missing += [f"spec:{name}" for name in specs if f"spec:{name}" not in everywhere]
    missing += [f"named:{name}" for name in catalog.named if f"named:{name}" not in everywhere]
    assert not missing, f"{len(missing)} metrics without a golden case:\n" + "\n".join(missing)
