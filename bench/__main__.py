"""``python -m bench``: run the benchmark sections, print the table, write bench/results/."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import report

SECTIONS: dict[str, str] = {
    "metrics": "bench.metrics",
    "server": "bench.server",
    "models": "bench.models",
    "judge": "bench.judge",
    "ray": "bench.ray_engine",
}
"""Section name -> the module whose ``run(quick)`` measures it. A new section (e.g. end-to-end
server throughput against a bare echo gRPC server) is one such module and one entry here.

Imported only when run: the load processes a section spawns import this module again (as the
main module of ``python -m bench``), and the reference libraries of the metrics section alone
take ~3 s of CPU to import."""


def runner(name: str) -> Callable[[bool], report.Section]:
    """The ``run(quick)`` of section ``name``."""
    run: Callable[[bool], report.Section] = importlib.import_module(SECTIONS[name]).run
    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen sections (all by default); returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="tiny inputs and time budgets (a smoke test)"
    )
    parser.add_argument(
        "--only", choices=sorted(SECTIONS), action="append", help="run only this section"
    )
    parser.add_argument(
        "--out", type=Path, default=report.RESULTS_DIR, help="folder for bench.md and bench.json"
    )
    args = parser.parse_args(argv)
    names = args.only or list(SECTIONS)
    sections = [runner(name)(args.quick) for name in names]
    md_path, json_path, text = report.write(sections, args.out)
    print(text)
    print(f"written: {md_path} {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
