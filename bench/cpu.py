"""CPU time of processes (Linux ``/proc``): where a measurement's CPU went.

Used by the server section to split the machine's CPU between the server's processes and the
load (or in-process kernel) processes, round by round. Elsewhere it returns 0.0.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PROC = Path("/proc")


def seconds(pids: Iterable[int]) -> float:
    """User + system CPU seconds used so far by ``pids`` (gone or unreadable ones count 0)."""
    total = 0
    for pid in pids:
        try:
            fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / _TICKS


def tree(pid: int) -> list[int]:
    """``pid`` and every process descended from it, now."""
    parents: dict[int, list[int]] = {}
    try:
        entries = [entry.name for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return [pid]
    for name in entries:
        try:
            status = (_PROC / name / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("PPid:"):
                parents.setdefault(int(line.split()[1]), []).append(int(name))
                break
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += parents.get(current, [])
    return found
