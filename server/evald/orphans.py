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
