"""evald's performance benchmark: ``make bench`` (``python -m bench``).

Each section (see ``SECTIONS`` in :mod:`bench.__main__`) measures something against a baseline
and returns a :class:`bench.report.Section`; :mod:`bench.report` writes them all as one
Markdown table per section plus one JSON file under ``bench/results/`` (git-ignored).
"""
