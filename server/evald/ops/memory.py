"""Giving memory back to the system after large requests.

A request of tens of MiB parses into many small allocations; freed, they stay with the C
allocator, so four rejected 57 MiB requests could leave the process at 8 GB while idle.
:func:`release_soon` asks glibc to return free memory (``malloc_trim``), in a thread, at most
once per :data:`MIN_INTERVAL`; elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections.abc import Callable

RELEASE_AFTER_BYTES = 8 * 1024 * 1024
"""Requests at least this large trigger a release once they end."""
MIN_INTERVAL = 1.0
"""Seconds between two releases (a trim walks the whole heap)."""

_lock = threading.Lock()
_last = 0.0


def _find_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        function: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return function


_trim = _find_trim()


def release_soon() -> None:
    """Return free heap memory to the system, in a background thread (rate limited)."""
    global _last
    if _trim is None:
        return
    with _lock:
        now = time.monotonic()
        if now - _last < MIN_INTERVAL:
            return
        _last = now
    threading.Thread(target=_trim, args=(0,), daemon=True).start()
