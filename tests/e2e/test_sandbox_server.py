"""Attacks through the server: each gives a per-metric error and the server stays healthy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import MESSAGES, serving, stub

SECRET = "evald-e2e-secret-93c1"
ATTACKS = {
    "environment": "import os\ndef evaluate(i):\n    return float(len(os.environ))",
    "passwd": "def evaluate(i):\n    return len(open('/etc/passwd').read())",
    "socket": "import socket\ndef evaluate(i):\n    return 1.0",
    "fork bomb": "import os\ndef evaluate(i):\n    while True:\n        os.fork()",
    "loop": "def evaluate(i):\n    while True:\n        pass",
    "memory": "def evaluate(i):\n    x = []\n    while True:\n        x.append(' ' * 10**7)",
    "output": "import os\ndef evaluate(i):\n    while True:\n        os.write(3, b'x' * 65536)",
    "ctypes": "import ctypes\ndef evaluate(i):\n    return 1.0",
    "not a number": "def evaluate(i):\n    return [1]",
}
EXPECTED = {  # gRPC code of each metric result (0: a score, which must then be 0.0)
    "environment": 0,
    "passwd": 3,
    "socket": 3,
    "fork bomb": 3,
    "loop": 4,
    "memory": 8,
    "output": 8,
    "ctypes": 3,
    "not a number": 3,
}


@pytest.fixture
def channel(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[grpc.Channel]:
    monkeypatch.setenv("EVALD_FAKE_API_KEY", SECRET)
    settings = {
        "custom_code": True,
        "custom_code_cpu_seconds": 1,
        "custom_code_wall_seconds": 3.0,
        "custom_code_memory_bytes": 128 * 2**20,
        "data_dir": tmp_path,
    }
    with serving(**settings) as server, grpc.insecure_channel(server.address) as ch:
        yield ch


def test_attacks_give_per_metric_errors_and_leave_the_server_healthy(
    channel: grpc.Channel,
) -> None:
    body = {
        "metrics": [
            {"custom_code_execution_spec": {"evaluation_function": code}}
            for code in ATTACKS.values()
        ],
        "instance": {"response": {"text": "x"}},
    }
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    results = stub(channel).EvaluateInstances(request, timeout=30).metric_results
    codes = {name: r.error.code for name, r in zip(ATTACKS, results, strict=True)}
    assert codes == EXPECTED
    assert results[0].score == 0.0  # no environment variable at all, the secret included
    assert all(SECRET not in r.error.message for r in results)
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    ok = json_format.ParseDict(
        {
            "metrics": [
                {
                    "custom_code_execution_spec": {
                        "evaluation_function": "def evaluate(i):\n    return 0.25"
                    }
                }
            ],
            "instance": {"response": {"text": "x"}},
        },
        MESSAGES["v1beta1"].EvaluateInstancesRequest(),
    )
    assert stub(channel).EvaluateInstances(ok).metric_results[0].score == 0.25
