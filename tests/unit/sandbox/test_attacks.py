"""Hostile custom code: every attack ends in a per-run error (or a harmless score), fast."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest
from evald.errors import EvalError, FailedPrecondition
from evald.sandbox import Limits, Sandbox

LIMITS = Limits(cpu_seconds=1, wall_seconds=3.0, memory_bytes=128 * 2**20, max_output_bytes=4096)
SECRET = "evald-test-secret-5b1e"
INSTANCE = {"response": {"text": "hello"}}

# (name, code, expected gRPC code, or None when it must return exactly `score`)
ATTACKS: list[tuple[str, str, str | None, float | None]] = [
    (
        "read /etc/passwd",
        "def evaluate(i):\n    return len(open('/etc/passwd').read())",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "list the root",
        "import os\ndef evaluate(i):\n    return float(len(os.listdir('/')))",
        None,
        0.0,
    ),
    (
        "server env",
        "import os\ndef evaluate(i):\n"
        "    return 1.0 if any('evald-test-secret' in v for v in os.environ.values()) else 0.0",
        None,
        0.0,
    ),
    (
        "proc environ",
        "def evaluate(i):\n    return len(open('/proc/1/environ').read())",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "open a socket",
        "import socket\ndef evaluate(i):\n"
        "    socket.create_connection(('127.0.0.1', 80), 1)\n    return 1.0",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "socket via _socket",
        "import _socket\ndef evaluate(i):\n    return 1.0",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "fork bomb",
        "import os\ndef evaluate(i):\n    while True:\n        os.fork()",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "thread bomb",
        "import _thread\ndef evaluate(i):\n"
        "    while True:\n        _thread.start_new_thread(lambda: None, ())",
        "INVALID_ARGUMENT",
        None,
    ),
    ("infinite loop", "def evaluate(i):\n    while True:\n        pass", "DEADLINE_EXCEEDED", None),
    (
        "C-level loop",
        "def evaluate(i):\n    return float(len(str(9 ** 9 ** 9)))",
        "DEADLINE_EXCEEDED",
        None,
    ),
    ("sleep", "import time\ndef evaluate(i):\n    time.sleep(60)", "DEADLINE_EXCEEDED", None),
    (
        "memory bomb",
        "def evaluate(i):\n    x = []\n    while True:\n        x.append(' ' * 10**7)",
        "RESOURCE_EXHAUSTED",
        None,
    ),
    (
        "huge output",
        "import os\ndef evaluate(i):\n    while True:\n        os.write(3, b'x' * 65536)",
        "RESOURCE_EXHAUSTED",
        None,
    ),
    (
        "prints a lot",
        "def evaluate(i):\n    for _ in range(10000):\n        print('x' * 1000)\n    return 2.0",
        None,
        2.0,
    ),
    ("import ctypes", "import ctypes\ndef evaluate(i):\n    return 1.0", "INVALID_ARGUMENT", None),
    (
        "ctypes via _ctypes",
        "import _ctypes\ndef evaluate(i):\n    return 1.0",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "write a file",
        "def evaluate(i):\n    open('/x', 'w').write('x')\n    return 1.0",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "escape the chroot",
        "import os\ndef evaluate(i):\n    os.chroot('/')\n    return 1.0",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "kill everyone",
        "import os, signal\ndef evaluate(i):\n    os.kill(-1, signal.SIGKILL)",
        "INVALID_ARGUMENT",
        None,
    ),
    ("returns a string", "def evaluate(i):\n    return 'high'", "INVALID_ARGUMENT", None),
    ("returns None", "def evaluate(i):\n    pass", "INVALID_ARGUMENT", None),
    ("returns True", "def evaluate(i):\n    return True", "INVALID_ARGUMENT", None),
    ("returns NaN", "def evaluate(i):\n    return float('nan')", "INVALID_ARGUMENT", None),
    (
        "dict without score",
        "def evaluate(i):\n    return {'explanation': 'x'}",
        "INVALID_ARGUMENT",
        None,
    ),
    (
        "hostile __str__",
        "class E(Exception):\n    def __str__(self):\n        while True: pass\n"
        "def evaluate(i):\n    raise E()",
        "DEADLINE_EXCEEDED",
        None,
    ),
    ("sys.exit", "import sys\ndef evaluate(i):\n    sys.exit(0)", "INVALID_ARGUMENT", None),
    ("syntax error", "def evaluate(i) return 1", "INVALID_ARGUMENT", None),
    ("no evaluate", "def score(i):\n    return 1.0", "INVALID_ARGUMENT", None),
]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    os.environ["EVALD_FAKE_SECRET"] = SECRET  # in the server's env: must stay out of reach
    try:
        box = Sandbox(True, LIMITS)
        if asyncio.run(box.unavailable()) is not None:
            pytest.fail(f"sandbox unavailable on this machine: {asyncio.run(box.unavailable())}")
        yield box
    finally:
        del os.environ["EVALD_FAKE_SECRET"]


def _run(box: Sandbox, code: str) -> float | str:
    fresh = Sandbox(True, box.limits)  # one per event loop: asyncio.run makes a new loop
    try:
        return asyncio.run(fresh.run(code, INSTANCE, function="evaluate", field="f")).score
    except EvalError as exc:
        message, code_name = exc.message, exc.code.name
    assert SECRET not in message
    return code_name


@pytest.mark.parametrize(
    ("name", "code", "error", "expected"), ATTACKS, ids=[a[0] for a in ATTACKS]
)
def test_attack(
    sandbox: Sandbox, name: str, code: str, error: str | None, expected: float | None
) -> None:
    got = _run(sandbox, code)
    assert got == (error if error is not None else expected)


def test_ordinary_code_and_dict_results(sandbox: Sandbox) -> None:
    code = (
        "import json, math, re\n"
        "def evaluate(instance):\n"
        "    words = re.findall(r'\\w+', instance['response']['text'])\n"
        "    return {'score': math.sqrt(len(words) * 4), 'explanation': json.dumps(words)}\n"
    )
    fresh = Sandbox(True, LIMITS)
    result = asyncio.run(fresh.run(code, INSTANCE, function="evaluate", field="f"))
    assert result.score == 2.0
    assert result.explanation == '["hello"]'


FORGERIES = [
    "import sys\ndef evaluate(i):\n"
    "    sys.modules['__main__']._answer({'status': 'isolation', 'message': 'forged'})",
    "import os, json\ndef evaluate(i):\n"
    '    os.write(3, b\'{"status": "isolation", "message": "forged"}\\n\')\n'
    "    os._exit(0)",
    "import sys\ndef evaluate(i):\n"
    "    m = sys.modules['__main__']\n"
    '    m._result.write(\'{"status": "isolation", "message": "forged"}\\n\')\n'
    "    m._result.flush()\n    m.os._exit(0)",
]


@pytest.mark.parametrize("code", FORGERIES)
def test_user_code_cannot_pass_for_a_sandbox_failure(sandbox: Sandbox, code: str) -> None:
    fresh = Sandbox(True, sandbox.limits)
    with pytest.raises(EvalError) as caught:
        asyncio.run(fresh.run(code, INSTANCE, function="evaluate", field="f"))
    assert caught.value.code.name == "INVALID_ARGUMENT"
    assert "set-up failed" not in caught.value.message


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("def evaluate(i):\n    return 10**400", "got a number too large to be a score"),
        (
            "def evaluate(i):\n    return {'score': -10**400}",
            "got a dict whose 'score' is too large to be a score",
        ),
        ("def evaluate(i):\n    return float('inf')", "not finite"),
    ],
)
def test_a_score_out_of_range_is_named(sandbox: Sandbox, code: str, words: str) -> None:
    fresh = Sandbox(True, sandbox.limits)
    with pytest.raises(EvalError) as caught:
        asyncio.run(fresh.run(code, INSTANCE, function="evaluate", field="f"))
    assert words in caught.value.message


def test_disabled_sandbox_refuses() -> None:
    box = Sandbox(False, LIMITS)
    with pytest.raises(FailedPrecondition, match="--enable-custom-code"):
        asyncio.run(box.run("def evaluate(i): return 1", {}, function="evaluate", field="f"))


def test_fails_closed_without_isolation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)  # no util-linux unshare
    box = Sandbox(True, LIMITS)
    with pytest.raises(FailedPrecondition, match="unshare"):
        asyncio.run(box.run("def evaluate(i): return 1", {}, function="evaluate", field="f"))


def test_fails_closed_when_not_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    box = Sandbox(True, LIMITS)
    with pytest.raises(FailedPrecondition, match="root"):
        asyncio.run(box.run("def evaluate(i): return 1", {}, function="evaluate", field="f"))
