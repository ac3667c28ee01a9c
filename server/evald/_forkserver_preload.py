"""The module the scoring forkserver imports first: it loads every built-in metric, so each
scoring process is forked with them (and their libraries: nltk alone takes ~2.7 s to import) in
memory instead of importing them on its first job.

The forkserver needs no parent-death signal of its own: it exits once the process that started
it is gone (multiprocessing's alive pipe reaches its end), and each scoring process dies with the
forkserver (:func:`evald.scoring._child_main`). A parent-death signal here would tie the
forkserver to the *thread* that happened to start it: a pool started from a worker thread would
lose its forkserver when that thread ended, and no scoring process could start after.
"""

from evald.metrics.catalog import builtin

builtin()
