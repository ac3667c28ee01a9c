"""The progress line: drawn at once, cleared on a terminal, with elapsed time and ETA."""

from __future__ import annotations

import io

import pytest
from evald.cli.progress import CLEAR_LINE, Progress, duration


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0:00"), (4.9, "0:04"), (61, "1:01"), (3600, "1:00:00"), (3725, "1:02:05"), (-1, "0:00")],
)
def test_duration(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def test_terminal_line_is_drawn_at_once_then_cleared_and_redrawn() -> None:
    stream, clock = Terminal(), Clock()
    progress = Progress(1000, stream=stream, clock=clock)
    assert stream.getvalue() == CLEAR_LINE + "[" + "." * 30 + "] 0/1000 rows   0%  0:00 elapsed"
    clock.now += 10
    progress.update(250, failed=3)
    drawn = stream.getvalue().split(CLEAR_LINE)
    assert drawn[-1] == (
        "[#######.......................] 250/1000 rows  25%  25 rows/s  0:10 elapsed  "
        "ETA 0:30  3 failed"
    )
    clock.now += 0.01
    progress.update(251)  # too soon: not redrawn
    assert len(stream.getvalue().split(CLEAR_LINE)) == len(drawn)
    clock.now += 30
    progress.update(1000)
    progress.close()
    last = stream.getvalue().split(CLEAR_LINE)[-1]
    assert last.endswith("1000/1000 rows 100%  25 rows/s  0:40 elapsed\n")  # no ETA when done
    assert "\n" not in "".join(stream.getvalue().split(CLEAR_LINE)[:-1])  # one line, redrawn


def test_log_output_is_one_line_per_tenth() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(20, stream=stream, clock=clock)
    for done in range(1, 21):
        clock.now += 1
        progress.update(done)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11  # the start, then every 10%
    assert lines[0].startswith("[" + "." * 30 + "] 0/20 rows")
    assert "\x1b" not in stream.getvalue()
    assert "2/20 rows  10%  1 rows/s  0:02 elapsed  ETA 0:18" in lines[1]
