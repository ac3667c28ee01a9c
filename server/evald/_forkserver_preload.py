"""The module the scoring forkserver imports first: it loads every built-in metric, so each
scoring process is forked with them (and their libraries: nltk alone takes ~2.7 s to import) in
memory instead of importing them on its first job.

Once loaded, the forkserver exits when the process that started it is gone (multiprocessing's
alive pipe reaches its end), and each scoring process dies with the forkserver
(:func:`evald.scoring._child_main`). While loading it reads no pipe, so a thread watches the
parent meanwhile: a server killed seconds after start-up would otherwise leave a forkserver
holding its stdout and stderr open until the imports end, and whoever waits for those to close
(a supervisor, a test, a CI log reader) would wait with it. The thread ends with the loading, so
no scoring process is forked while it runs.

There is no parent-death signal here: it would tie the forkserver to the *thread* that happened
to start it, so a pool started from a worker thread would lose its forkserver when that thread
ended, and no scoring process could start after.
"""

from __future__ import annotations

import os
import threading

WATCH_SECONDS = 0.1
"""How often the loading forkserver checks that its parent is alive."""


def _exit_with(parent: int, loaded: threading.Event) -> None:
    while not loaded.wait(WATCH_SECONDS):
        if os.getppid() != parent:  # reparented: the server is gone
            os._exit(0)


def _parent() -> int:
    """The process this forkserver belongs to, as it named itself
    (``evald.scoring.FORKSERVER_PARENT``; not imported, so the watch starts at once), else the
    parent now: one that died before this module ran would already have been replaced by
    whoever adopted the forkserver.

    A name that is not the parent's and still alive was inherited: an ancestor named itself,
    and a process started from it (which did not) started this forkserver. The parent now is
    the one then. A name that is not the parent's and gone is the parent that died."""
    now = os.getppid()
    named = os.environ.get("EVALD_FORKSERVER_PARENT", "")
    if not named.isdigit() or int(named) == now or _alive(int(named)):
        return now
    return int(named)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs. A dead process its own parent has not reaped yet (a zombie)
    answers signals, so where /proc tells its state, that decides."""
    if os.path.isdir("/proc/self"):
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                return stat.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
        except FileNotFoundError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


def _load() -> None:
    loaded = threading.Event()
    watcher = threading.Thread(target=_exit_with, args=(_parent(), loaded), daemon=True)
    watcher.start()
    try:
        from evald.metrics.catalog import builtin

        builtin()
    finally:
        loaded.set()
        watcher.join()


_load()
