"""``evald serve --http-port`` and ``evald gateway`` as real processes, stopped by SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.http_support import post, request

BODY = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}
EXPECTED = {"exactMatchResults": {"exactMatchMetricValues": [{"score": 1.0}]}}


@contextmanager
def evald(*args: str, wait_for: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    """Run ``evald ARGS``; yields the process and the fields of its ``wait_for`` log line."""
    code = "import sys; from evald.cli import main; sys.exit(main())"
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                pytest.fail(f"evald exited early with {process.wait()}")
            try:
                fields = json.loads(line)
            except ValueError:
                continue
            if fields.get("msg") == wait_for:
                yield process, fields
                break
        else:
            pytest.fail(f"no {wait_for!r} log line")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def test_serve_with_http_port() -> None:
    with evald("serve", "--port", "0", "--http-port", "0", wait_for="serving") as (process, log):
        url = log["http"]
        assert post(url, "/v1beta1/projects/p/locations/l:evaluateInstances", BODY) == (
            200,
            EXPECTED,
        )
        assert request(url, "GET", "/healthz")[:2] == (200, {"status": "SERVING"})
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0


def test_separate_gateway_process() -> None:
    with (
        evald("serve", "--port", "0", wait_for="serving") as (server, served),
        evald(
            "gateway",
            "--grpc-target",
            served["address"],
            "--http-port",
            "0",
            wait_for="gateway serving",
        ) as (gateway, log),
    ):
        assert post(log["url"], "/v1:evaluateInstances", BODY) == (200, EXPECTED)
        gateway.send_signal(signal.SIGTERM)
        assert gateway.wait(30) == 0
        server.send_signal(signal.SIGTERM)
        assert server.wait(30) == 0


def test_gateway_needs_an_http_port() -> None:
    code = "import sys; from evald.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "gateway", "--grpc-target", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--http-port" in done.stderr
