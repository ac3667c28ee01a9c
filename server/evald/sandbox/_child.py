"""The sandboxed child: runs one user function on one JSON argument, then exits.

Started by :mod:`evald.sandbox.runner` as ``python -I -S _child.py`` inside fresh network, IPC,
UTS, mount and PID namespaces (util-linux ``unshare``), with an empty environment. Before any
user code runs it: reads its whole job from stdin, imports the modules user code may use, points
fds 0-2 at /dev/null, chroots into an empty directory, drops to an unprivileged user and sets
resource limits. The one line it writes to its private result fd is the only thing the parent
reads. Standard library only: it runs before (and outside) the evald package.
"""

# ruff: noqa: E402  (imports after the job is read are deliberate: they are the allow-list)

from __future__ import annotations

import json
import os
import resource
import signal
import sys


def _init(wall_seconds: int) -> None:
    """As PID 1 of the new PID namespace, fork the worker and wait for it, at most
    ``wall_seconds``.

    The kernel does not deliver signals whose action is the default to a namespace's init,
    RLIMIT_CPU's SIGXCPU and SIGKILL included: the worker must not be PID 1. When this process
    exits, every process left in the namespace is killed. The wall-clock limit is enforced here
    too, not only by the server: it holds if the server is gone.
    """
    pid = os.fork()
    if pid == 0:
        return

    def over_time(signum: int, frame: object) -> None:
        os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, over_time)
    signal.alarm(wall_seconds)
    os.close(0)
    os.close(1)
    _, status = os.waitpid(pid, 0)
    os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))


if os.getpid() == 1:
    _init(int(sys.argv[1]) if len(sys.argv) > 1 else 60)

_job = json.loads(sys.stdin.buffer.read())

# The modules user code may import: loaded now, before the chroot makes every other one
# unreachable. Nothing here opens files, sockets or processes by itself.
import bisect
import collections
import copy
import datetime
import decimal
import difflib
import fractions
import functools
import heapq
import itertools
import math
import operator
import random
import re
import statistics
import string
import textwrap
import unicodedata

ALLOWED = (
    bisect,
    collections,
    copy,
    datetime,
    decimal,
    difflib,
    fractions,
    functools,
    heapq,
    itertools,
    json,
    math,
    operator,
    random,
    re,
    statistics,
    string,
    textwrap,
    unicodedata,
)

CONFINED = '{"status": "confined"}'
_result = os.fdopen(os.dup(1), "w", encoding="utf-8")
_null = os.open(os.devnull, os.O_RDWR)
for _fd in (0, 1, 2):
    os.dup2(_null, _fd)
os.close(_null)


class _Discard:
    """``sys.stdout`` / ``sys.stderr`` of user code: printing costs nothing and goes nowhere."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


sys.stdout = sys.stderr = _Discard()


def _answer(payload: dict[str, object]) -> None:
    _result.write(json.dumps(payload) + "\n")
    _result.flush()
    os._exit(0)


def _confine() -> None:
    os.chroot(_job["root"])
    os.chdir("/")
    os.setgroups([])
    os.setgid(_job["gid"])
    os.setuid(_job["uid"])
    os.environ.clear()
    for limit, value in (
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NPROC, 0),  # no fork, no threads
        (resource.RLIMIT_NOFILE, _job["nofile"]),
        (resource.RLIMIT_AS, _job["memory"]),
    ):
        resource.setrlimit(limit, (value, value))
    # Soft CPU limit: SIGXCPU (kills: no handler); hard limit one second later: SIGKILL.
    resource.setrlimit(resource.RLIMIT_CPU, (_job["cpu"], _job["cpu"] + 1))
    if os.getuid() == 0 or os.geteuid() == 0 or os.listdir("/"):
        raise RuntimeError("sandbox confinement did not take effect")


try:
    _confine()
except Exception as exc:  # report and stop: never run user code unconfined
    _answer({"status": "isolation", "message": f"{type(exc).__name__}: {exc}"})

# The first line, written before any user code runs: an answer after it comes from a confined
# process, so user code cannot pass itself off as a sandbox that failed to set up.
_result.write(CONFINED + "\n")
_result.flush()


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<evaluation_function>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line is not None else ""


def _run() -> None:
    limit = int(_job["max_text"])
    sys.setrecursionlimit(200)
    namespace: dict[str, object] = {"__name__": "evald_user_code"}
    try:
        exec(compile(_job["code"], "<evaluation_function>", "exec"), namespace)
        function = namespace.get(_job["function"])
        if not callable(function):
            _answer({"status": "error", "message": f"the code defines no {_job['function']}()"})
        value = function(_job["argument"])  # type: ignore[operator]
        # Converted here, inside the limits: str() of a hostile object is user code too.
        if isinstance(value, dict):
            explanation = value.get("explanation")
            payload = {
                "status": "ok",
                "score": value.get("score"),
                "explanation": None if explanation is None else str(explanation)[:limit],
                "kind": "dict",
            }
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            payload = {"status": "ok", "score": None, "kind": type(value).__name__}
        else:
            payload = {"status": "ok", "score": value, "kind": "number"}
        if isinstance(payload["score"], bool) or not isinstance(payload["score"], (int, float)):
            payload["score"] = None
        elif isinstance(payload["score"], int):
            try:
                payload["score"] = float(payload["score"])
            except OverflowError:  # e.g. 10**400: no float holds it
                payload["score"] = None
                payload["kind"] = (
                    "number too large to be a score"
                    if payload["kind"] == "number"
                    else "dict whose 'score' is too large to be a score"
                )
    except MemoryError:
        _answer({"status": "memory", "message": "the code ran out of memory"})
    except RecursionError:
        _answer({"status": "error", "message": "RecursionError: maximum recursion depth"})
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        try:
            text = f"{type(exc).__name__}: {exc}"[:limit]
        except BaseException:
            text = type(exc).__name__
        _answer({"status": "error", "message": text + _where(exc)})
    _answer(payload)


_run()
