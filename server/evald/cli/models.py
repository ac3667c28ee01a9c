"""``evald models list``: the models directory and the default model of each model-backed
metric, and whether it is there (models are never downloaded: see docs/model-backed-metrics.md).

Exit codes: 0 done; 2 bad usage (a bad setting or metric module).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evald.config import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``list`` subcommand."""
    actions = parser.add_subparsers(dest="action", required=True)
    text = "show the models directory and each model-backed metric's model, present or not"
    sub = actions.add_parser("list", help=text, description=text)
    sub.add_argument(
        "--models-dir", type=Path, help="the models directory (default: EVALD_MODELS_DIR)"
    )
    sub.add_argument("--json", action="store_true", help="print JSON instead of a table")


def listing(settings: Settings) -> dict[str, Any]:
    """The models directory and, per model-backed metric, its kind, model, path and presence."""
    from evald.models.base import known_models, model_candidates, model_present

    rows = []
    for known in known_models(settings.metric_module_names()):
        paths = model_candidates(settings.models_dir, known.model)
        path = paths[0] if paths else None
        rows.append(
            {
                "metric": known.metric,
                "kind": known.kind,
                "model": known.model,
                "path": None if path is None else str(path),
                "present": path is not None and model_present(path),
            }
        )
    folder = settings.models_dir
    return {"models_dir": None if folder is None else str(folder), "models": rows}


def run(args: argparse.Namespace) -> int:
    """Print the listing."""
    try:
        settings = Settings.load({"models_dir": args.models_dir})
        shown = listing(settings)
    except ValueError as exc:  # a bad setting, or a metric module that cannot be imported
        print(f"evald models: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(shown, indent=2))
        return 0
    folder = shown["models_dir"] or "(not set: --models-dir or EVALD_MODELS_DIR)"
    print(f"models directory: {folder}")
    if not shown["models"]:
        print("no model-backed metrics")
        return 0
    header = ("METRIC", "MODEL", "PRESENT", "KIND")
    lines = [
        (row["metric"], row["model"], "yes" if row["present"] else "no", row["kind"])
        for row in shown["models"]
    ]
    widths = [max(len(line[i]) for line in (header, *lines)) for i in range(len(header) - 1)]
    for line in (header, *lines):
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(line[:-1], widths, strict=True)),
            line[-1],
        )
    return 0
