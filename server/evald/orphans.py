"""Helper processes must not outlive the server that started them.

A server killed with SIGKILL cannot stop its scoring processes; orphaned ones would keep the
server's inherited stdout/stderr pipes open, which hangs whoever waits on those (a supervisor, a
test, a CI log reader), and hold memory.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """On Linux, have the kernel SIGKILL this process when its parent (thread) exits."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def process_start(pid: int) -> str:
    """When process ``pid`` started, as ``<boot id>/<clock ticks since boot>``; "" where this
    cannot be read (not Linux, no such process, /proc hidden)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""
    # Fields after the command name, which is in parentheses and may hold anything; the start
    # time is field 22 of the whole line, so 20th after the name.
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20 or not fields[19].isdigit():
        return ""
    return f"{boot}/{fields[19]}"
