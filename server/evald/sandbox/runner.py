"""Runs user Python code in an isolated child process and reads back one JSON answer.

What the isolation rests on (all must hold, or nothing runs: fail closed):

* a separate process per run, started with an empty environment and ``python -I -S`` (no
  site-packages, no ``PYTHON*`` variables, no user site), in its own session;
* util-linux ``unshare``: new network (no interfaces but a down loopback), IPC, UTS, mount and
  PID namespaces; the child is PID 1 of its namespace, so it dies with everything it started;
* ``chroot`` into an empty, read-only directory after the allowed modules are imported, then
  ``setgroups([])``, ``setgid``/``setuid`` to ``nobody``: no files, no capabilities;
* rlimits: CPU seconds, address space, no new processes or threads (NPROC 0), no file writes
  (FSIZE 0), a handful of fds, no core dumps; and a wall-clock timeout after which the parent
  kills the whole process group (``unshare --kill-child`` takes the child along).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import pwd
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evald.errors import (
    DeadlineExceeded,
    EvalError,
    FailedPrecondition,
    InvalidArgument,
    ResourceExhausted,
)
from evald.ops import telemetry
from evald.orphans import process_start
from evald.sandbox.limits import Limits

log = logging.getLogger(__name__)

CHILD = Path(__file__).with_name("_child.py")
NAMESPACES = ("--net", "--ipc", "--uts", "--mount", "--pid", "--fork", "--kill-child")
DISABLED = (
    "custom code execution is disabled on this server; start it with --enable-custom-code "
    "(EVALD_CUSTOM_CODE=1) to allow it"
)
PROBE = """
import os
def evaluate(instance):
    return 1.0 if os.getuid() != 0 and os.listdir("/") == [] and not os.environ else 0.0
"""


@dataclass(frozen=True)
class Result:
    """What a user function returned: a finite score and, if it returned a dict, a text."""

    score: float
    explanation: str | None = None


class Sandbox:
    """Isolated execution of ``def <function>(argument)`` from user source code."""

    def __init__(self, enabled: bool, limits: Limits | None = None) -> None:
        self.enabled = enabled
        self.limits = limits or Limits()
        if enabled:
            remove_stale_roots(Path(tempfile.gettempdir()))
        self._slots = asyncio.Semaphore(self.limits.concurrency)
        self._probe_lock = asyncio.Lock()
        self._unavailable: str | None = None
        self._probed = False

    async def run(self, code: str, argument: Any, *, function: str, field: str) -> Result:
        """Run ``function(argument)`` defined by ``code``; errors name request field ``field``.

        Raises FailedPrecondition (disabled or no isolation), InvalidArgument (the code failed
        or returned something that is not a number), DeadlineExceeded (CPU or wall time) or
        ResourceExhausted (memory or output).
        """
        if not self.enabled:
            raise FailedPrecondition(DISABLED)
        if len(code.encode()) > self.limits.max_code_bytes:
            raise InvalidArgument(field, f"code is larger than {self.limits.max_code_bytes} bytes")
        if not code.strip():
            raise InvalidArgument(field, "no code given")
        reason = await self.unavailable()
        if reason is not None:
            raise FailedPrecondition(f"custom code cannot run: {reason}")
        try:
            answer = await self._execute(code, argument, function)
            result = _result(answer, field, function, self.limits)
        except EvalError as exc:
            telemetry.SANDBOX_RUNS.labels(exc.code.name).inc()
            raise
        telemetry.SANDBOX_RUNS.labels("OK").inc()
        return result

    async def unavailable(self) -> str | None:
        """Why isolation cannot be set up here, or None when it works (probed once)."""
        async with self._probe_lock:
            if not self._probed:
                self._unavailable = await self._probe()
                self._probed = True
                if self._unavailable is not None:
                    log.warning("custom code sandbox unavailable: %s", self._unavailable)
        return self._unavailable

    async def _probe(self) -> str | None:
        if not sys.platform.startswith("linux"):
            return "the sandbox needs Linux namespaces"
        if os.geteuid() != 0:
            return "the sandbox needs root (chroot, namespaces, switching to user nobody)"
        if shutil.which("unshare") is None:
            return "util-linux 'unshare' is not installed"
        try:
            answer = await self._execute(PROBE, {}, "evaluate")
        except EvalError as exc:
            return f"isolation probe failed: {exc.message}"
        if answer.get("status") != "ok" or answer.get("score") != 1.0:
            return f"isolation probe failed: {answer.get('message') or answer}"
        return None

    async def _execute(self, code: str, argument: Any, function: str) -> dict[str, Any]:
        limits = self.limits
        try:
            user = pwd.getpwnam("nobody")
            uid, gid = user.pw_uid, user.pw_gid
        except KeyError:
            uid = gid = 65534
        async with self._slots:
            root = tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{_OWNER}-")
            try:
                os.chmod(root, 0o555)
                job = {
                    "code": code,
                    "function": function,
                    "argument": argument,
                    "root": root,
                    "uid": uid,
                    "gid": gid,
                    "cpu": limits.cpu_seconds,
                    "memory": limits.memory_bytes,
                    "nofile": limits.open_files,
                    "max_text": limits.max_text_chars,
                }
                payload = json.dumps(job).encode()
                if len(payload) > limits.max_argument_bytes + limits.max_code_bytes:
                    raise ResourceExhausted("the instance is too large to pass to custom code")
                return await self._spawn(payload, root)
            finally:
                os.rmdir(root)

    async def _spawn(self, payload: bytes, root: str) -> dict[str, Any]:
        limits = self.limits
        unshare = shutil.which("unshare") or "unshare"
        # PID 1 of the namespace also enforces the wall limit (a second later than the server
        # does): the limit holds if the server is gone. setpriv gives unshare a death signal
        # for when the server dies, and unshare's --kill-child passes it on to the namespace.
        wall = str(math.ceil(limits.wall_seconds) + 1)
        child = [sys.executable, "-I", "-S", "-B", str(CHILD), wall]
        command = [unshare, *NAMESPACES, "--", *child]
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            command = [setpriv, "--pdeathsig", "KILL", "--", *command]
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env={},
                cwd=root,
                start_new_session=True,
            )
        except OSError as exc:
            raise FailedPrecondition(f"cannot start the sandbox: {exc.strerror or exc}") from None
        try:
            output = await asyncio.wait_for(
                _exchange(process, payload, limits.max_output_bytes), limits.wall_seconds
            )
        except TimeoutError:
            await _reap(process)
            telemetry.SANDBOX_KILLS.labels("wall_time").inc()
            raise DeadlineExceeded(
                f"custom code took longer than {limits.wall_seconds:g} s (wall time)"
            ) from None
        except _TooMuchOutput:
            await _reap(process)
            telemetry.SANDBOX_KILLS.labels("output").inc()
            raise ResourceExhausted(
                f"custom code wrote more than {limits.max_output_bytes} bytes of output"
            ) from None
        except BaseException:
            with contextlib.suppress(Exception):
                await _reap(process)
            raise
        code = await process.wait()
        _kill(process)  # anything left in the group (there should be nothing)
        return _decode(output, code, limits)


ROOT_PREFIX = "evald-sandbox-"
"""Each run's empty root is ``<tmp>/evald-sandbox-<pid>_<process start>-<random>``."""
_OWNER = f"{os.getpid()}_{process_start(os.getpid()).replace('/', '_')}"


def remove_stale_roots(folder: Path) -> list[Path]:
    """Remove the run roots in ``folder`` left by a server process that is gone (killed before
    it could remove them); those of live processes (this one included) stay. Returns them."""
    removed = []
    for root in folder.glob(f"{ROOT_PREFIX}*"):
        owner = root.name.removeprefix(ROOT_PREFIX).rpartition("-")[0]
        pid, _, start = owner.partition("_")
        if not pid.isdigit() or not root.is_dir():
            continue
        now = process_start(int(pid)).replace("/", "_")
        alive = bool(now) and now == start
        if not alive and (now or not Path(f"/proc/{pid}").exists()):
            with contextlib.suppress(OSError):
                root.rmdir()  # empty: nothing is ever written into a root
                removed.append(root)
    return removed


class _TooMuchOutput(Exception):
    pass


async def _exchange(process: Any, payload: bytes, limit: int) -> bytes:
    assert process.stdin is not None
    assert process.stdout is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(payload)
        await process.stdin.drain()
        process.stdin.close()
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await process.stdout.read(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise _TooMuchOutput
        chunks.append(chunk)


async def _reap(process: Any) -> None:
    """Kill the group, then read stdout to its end: asyncio reports the exit only once every
    pipe is closed, and a reader paused on a full buffer never sees the end."""
    _kill(process)
    assert process.stdout is not None
    while await process.stdout.read(65536):
        pass
    await process.wait()


def _kill(process: Any) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


CONFINED = b'{"status": "confined"}'
"""The child's first line once it is confined, before user code runs."""


def _decode(output: bytes, code: int, limits: Limits) -> dict[str, Any]:
    lines = output.strip().splitlines()
    line = lines[-1] if lines else b""
    confined = bool(lines) and lines[0] == CONFINED
    try:
        answer = json.loads(line) if line and line != CONFINED else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and isinstance(answer.get("status"), str):
        if confined and answer["status"] == "isolation":
            # Written after confinement: by user code, imitating a set-up failure.
            return {"status": "error", "message": "the code wrote a forged sandbox answer"}
        if not confined and answer["status"] != "isolation":
            return {"status": "isolation", "message": "the sandbox did not confirm confinement"}
        return answer
    # No answer: the child was killed. unshare re-raises its child's fatal signal on itself.
    signum = -code if code < 0 else code - 128 if code > 128 else 0
    if signum in (signal.SIGXCPU, signal.SIGKILL):
        telemetry.SANDBOX_KILLS.labels("cpu_time").inc()
        raise DeadlineExceeded(f"custom code used more than {limits.cpu_seconds} s of CPU time")
    if signum:
        return {"status": "error", "message": f"the code was killed by signal {signum}"}
    return {"status": "error", "message": f"the code ended without an answer (exit {code})"}


def _result(answer: dict[str, Any], field: str, function: str, limits: Limits) -> Result:
    status = answer.get("status")
    message = str(answer.get("message", ""))[: limits.max_text_chars]
    if status == "isolation":
        raise FailedPrecondition(f"custom code cannot run: sandbox set-up failed: {message}")
    if status == "memory":
        telemetry.SANDBOX_KILLS.labels("memory").inc()
        raise ResourceExhausted(
            f"custom code exceeded its memory limit of {limits.memory_bytes // 2**20} MiB"
        )
    if status != "ok":
        raise InvalidArgument(field, f"the code failed: {message}")
    score = answer.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        kind = answer.get("kind", "value")
        what = "a dict without a numeric 'score'" if kind == "dict" else f"a {kind}"
        raise InvalidArgument(
            field, f"{function}() must return a number or a dict with a numeric 'score'; got {what}"
        )
    if not math.isfinite(score):
        raise InvalidArgument(field, f"{function}() returned a score that is not finite: {score}")
    explanation = answer.get("explanation")
    return Result(float(score), explanation if isinstance(explanation, str) else None)
