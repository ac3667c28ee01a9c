"""``python -m bench``: run the benchmark sections, print the table, write bench/results/."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import judge, metrics, models, ray_engine, report, server

SECTIONS: dict[str, Callable[[bool], report.Section]] = {
    "metrics": metrics.run,
    "server": server.run,
    "models": models.run,
    "judge": judge.run,
    "ray": ray_engine.run,
}
"""Section name -> runner taking ``quick``. A new section (e.g. end-to-end server throughput
against a bare echo gRPC server) is one module with a ``run(quick)`` and one entry here."""


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
    sections = [SECTIONS[name](args.quick) for name in names]
    md_path, json_path, text = report.write(sections, args.out)
    print(text)
    print(f"written: {md_path} {json_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
