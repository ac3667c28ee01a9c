"""A dependency-free progress bar on stderr: redrawn in place on a terminal, one line per
10% otherwise (logs and CI output stay readable)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

WIDTH = 30
REDRAW_SECONDS = 0.1
CLEAR_LINE = "\r\x1b[K"
"""Back to the start of the line and clear it: a shorter line leaves nothing of a longer one."""


def duration(seconds: float) -> str:
    """``M:SS``, or ``H:MM:SS`` from an hour on."""
    whole = max(int(seconds), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """``done / total`` rows, with rate, elapsed time, ETA and failures; drawn at once, then
    call :meth:`update` and finally :meth:`close`."""

    def __init__(
        self,
        total: int,
        label: str = "rows",
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.clock = clock
        self.start = clock()
        self.done = 0
        self.failed = 0
        self._last_draw = self.start
        self._last_decile = 0
        # Drawn now: a slow first row (a judge call) must not leave the terminal blank.
        self._draw("\n" if not self.tty else "")

    def update(self, done: int, failed: int = 0) -> None:
        """Record progress and redraw when due."""
        self.done, self.failed = done, failed
        if self.tty:
            now = self.clock()
            if now - self._last_draw >= REDRAW_SECONDS or done >= self.total:
                self._last_draw = now
                self._draw("")
            return
        decile = done * 10 // self.total if self.total else 10
        if decile > self._last_decile:
            self._last_decile = decile
            self._draw("\n")

    def line(self) -> str:
        """The bar as text:
        ``[#####.....] 512/1000 rows  51%  830 rows/s  0:01 elapsed  ETA 0:01  3 failed``."""
        share = self.done / self.total if self.total else 1.0
        filled = int(share * WIDTH)
        elapsed = self.clock() - self.start
        text = (
            f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} {self.label} "
            f"{share:4.0%}"
        )
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            text += f"  {rate:,.0f} {self.label}/s"
        text += f"  {duration(elapsed)} elapsed"
        if 0 < self.done < self.total:
            text += f"  ETA {duration(elapsed / self.done * (self.total - self.done))}"
        return text + (f"  {self.failed} failed" if self.failed else "")

    def _draw(self, end: str) -> None:
        prefix = CLEAR_LINE if self.tty else ""
        self.stream.write(prefix + self.line() + end)
        self.stream.flush()

    def close(self) -> None:
        """Finish the line on a terminal."""
        if self.tty:
            self._draw("\n")
