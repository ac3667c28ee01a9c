"""The server process's own settings (the serving paths are tested end to end in tests/e2e)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_collector_is_tuned_once_serving() -> None:
    # In a child process: freezing the test process's objects would outlive the test.
    script = textwrap.dedent(
        """
        import gc
        from evald.server import COLLECTION_THRESHOLDS, tune_garbage_collector

        assert gc.get_threshold() != COLLECTION_THRESHOLDS
        before = gc.get_freeze_count()
        tune_garbage_collector()
        assert gc.get_threshold() == COLLECTION_THRESHOLDS, gc.get_threshold()
        assert gc.get_freeze_count() > before + 10_000, gc.get_freeze_count()
        assert gc.get_count()[0] < 100, gc.get_count()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
