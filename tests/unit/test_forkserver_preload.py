"""The scoring forkserver's preload: it loads the metrics, and dies with a server killed
meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

# A forkserver stand-in: says it has started, loads the preload, then waits (as a forkserver
# waits for requests).
FORKSERVER = (
    "import sys, time\n"
    "print('loading', file=sys.stderr, flush=True)\n"
    "import evald._forkserver_preload\n"
    "time.sleep(120)"
)


def test_a_loading_forkserver_exits_with_its_parent() -> None:
    # The parent exits as soon as the child runs, while the child still loads (seconds). It
    # names itself, as a server does: on a loaded machine the child's watch may begin only
    # after the parent is gone.
    parent = textwrap.dedent(
        f"""
        import subprocess, sys
        from evald.scoring import own_forkserver
        own_forkserver()
        child = subprocess.Popen([sys.executable, "-c", {FORKSERVER!r}], stderr=subprocess.PIPE)
        assert child.stderr is not None and child.stderr.readline() == b"loading\\n"
        """
    )
    start = time.monotonic()
    # run() returns once stdout is closed: by the parent and by the child that inherited it.
    done = subprocess.run([sys.executable, "-c", parent], stdout=subprocess.PIPE, timeout=150)
    assert done.returncode == 0
    assert time.monotonic() - start < 60, "the orphaned forkserver kept the pipe to the end"


def test_a_forkserver_whose_parent_died_before_the_watch_exits() -> None:
    """The parent names itself, starts the stand-in and exits at once: by the time the preload
    runs, the stand-in's parent is whoever adopted it, and only the name tells."""
    late = "import time; time.sleep(1)\n" + FORKSERVER
    parent = textwrap.dedent(
        f"""
        import os, subprocess, sys
        from evald.scoring import own_forkserver
        own_forkserver()
        subprocess.Popen([sys.executable, "-c", {late!r}], stderr=subprocess.DEVNULL)
        """
    )
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", parent], stdout=subprocess.PIPE, timeout=150)
    assert done.returncode == 0
    assert time.monotonic() - start < 60, "the orphaned forkserver kept the pipe to the end"


def test_a_name_inherited_from_a_live_ancestor_is_not_the_parent() -> None:
    """This test's process names itself, then starts a parent that does not: the stand-in it
    starts must load to the end while that parent lives, not take the ancestor's name for its
    parent's and exit as if orphaned."""
    loaded = FORKSERVER.replace("time.sleep(120)", "print('loaded', file=sys.stderr, flush=True)")
    parent = textwrap.dedent(
        f"""
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", {loaded!r}], stderr=subprocess.PIPE)
        assert child.stderr is not None and child.stderr.readline() == b"loading\\n"
        assert child.stderr.readline() == b"loaded\\n", "the stand-in exited while loading"
        assert child.wait(60) == 0
        """
    )
    env = {**os.environ, "EVALD_FORKSERVER_PARENT": str(os.getpid())}
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, timeout=150, env=env)
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_once_loaded_no_thread_is_left_to_fork_alongside() -> None:
    script = (
        "import threading, evald._forkserver_preload\n"
        "from evald.metrics.catalog import builtin\n"
        "assert builtin(), 'no metric loaded'\n"
        "print(threading.active_count())"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
