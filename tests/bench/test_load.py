"""The load generator (bench.load) and CPU accounting (bench.cpu)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_crew_processes_measure_many_rounds_and_report_failures() -> None:
    from bench.load import Crew
    from bench.server import KernelJob

    with Crew(KernelJob("bleu", 20), 2) as crew:
        first, second = crew.measure(0.05), crew.measure(0.05)  # the same processes, twice
        assert {first.errors, second.errors} == {0}
        assert first.requests >= 2 * 8  # 8 pairs at a time, 2 processes
        assert second.requests >= 2 * 8
        assert first.per_second > 0
    with (
        Crew(KernelJob("bleu", 0), 1) as broken,  # no pairs: the job fails to start
        pytest.raises(RuntimeError, match="failed to start: ZeroDivisionError"),
    ):
        broken.measure(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_cpu_seconds_of_a_process_tree() -> None:
    import subprocess
    import sys
    import time

    from bench import cpu

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in cpu.tree(os.getpid())
        assert os.getpid() in cpu.tree(os.getpid())
        before = cpu.seconds([os.getpid()])
        deadline = time.process_time() + 0.2
        while time.process_time() < deadline:  # burn 0.2 s of CPU
            pass
        assert cpu.seconds([os.getpid()]) - before >= 0.15
        assert cpu.seconds([2**22 + 12345]) == 0.0  # no such process: counts 0
    finally:
        child.kill()
        child.wait()
