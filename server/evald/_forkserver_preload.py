"""The module the scoring forkserver imports first: it then dies with the server that started
it, and loads every built-in metric, so each scoring process is forked with them (and their
libraries: nltk alone takes ~2.7 s to import) in memory instead of importing them on its first
job."""

from evald.orphans import die_with_parent

die_with_parent()

from evald.metrics.catalog import builtin  # noqa: E402  (after die_with_parent: a slow import)

builtin()
