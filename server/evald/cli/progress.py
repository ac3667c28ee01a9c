"""A dependency-free progress bar on stderr: redrawn in place on a terminal, one line per
10% otherwise (logs and CI output stay readable)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30


class Progress:
    """``done / total`` rows, with rate and failures; call :meth:`update` then :meth:`close`."""

    def __init__(self, total: int, label: str = "rows", stream: TextIO | None = None) -> None:
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.done = 0
        self.failed = 0
        self._last_draw = 0.0
        self._last_decile = -1

    def update(self, done: int, failed: int = 0) -> None:
        """Record progress and redraw when due."""
        self.done, self.failed = done, failed
        now = time.monotonic()
        if self.tty:
            if now - self._last_draw >= 0.1 or done >= self.total:
                self._last_draw = now
                self.stream.write("\r" + self.line())
                self.stream.flush()
            return
        decile = done * 10 // self.total if self.total else 10
        if decile > self._last_decile:
            self._last_decile = decile
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def line(self) -> str:
        """The bar as text: ``[#####.....] 512/1000 rows  51%  830 rows/s  3 failed``."""
        share = self.done / self.total if self.total else 1.0
        filled = int(share * WIDTH)
        rate = self.done / max(time.monotonic() - self.start, 1e-9)
        text = (
            f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} {self.label} "
            f"{share:4.0%}  {rate:,.0f} {self.label}/s"
        )
        return text + (f"  {self.failed} failed" if self.failed else "")

    def close(self) -> None:
        """Finish the line on a terminal."""
        if self.tty:
            self.stream.write("\r" + self.line() + "\n")
            self.stream.flush()
