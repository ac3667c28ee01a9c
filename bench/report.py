"""Benchmark results: rows of "ours vs baseline", written as Markdown and JSON."""

from __future__ import annotations

import datetime
import json
import os
import platform
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).parent / "results"
"""Default output folder (git-ignored)."""

LIBRARIES = ("rouge-score", "sacrebleu", "rapidfuzz", "nltk", "grpcio")
"""Packages whose versions the report records."""


@dataclass(frozen=True)
class Row:
    """One measured case: throughput (or a cost) of ours and of a baseline on the same kind of
    input."""

    case: str
    size: str
    ours: float
    baseline: float
    baseline_name: str
    unit: str = "pairs/s"
    note: str = ""

    @property
    def ratio(self) -> float:
        """ours / baseline: how many times faster ours is for a throughput, how many times
        costlier for a cost (such as the server section's CPU per pair)."""
        return self.ours / self.baseline if self.baseline else float("inf")


@dataclass
class Section:
    """One part of the benchmark, e.g. ``metrics`` (kernels in-process) or end-to-end server."""

    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def machine() -> dict[str, Any]:
    """CPU model, core count, Python and library versions: what the figures depend on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "libraries": versions,
    }


def _figure(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def markdown(sections: list[Section], info: dict[str, Any]) -> str:
    """All sections as Markdown: a machine line, then one table (and notes) per section."""
    lines = [
        f"Machine: {info['cpu']}, {info['cores']} cores, "
        f"{info['implementation']} {info['python']} ({info['platform']})",
        "",
    ]
    for section in sections:
        lines += [
            f"### {section.title}",
            "",
            "| case | size | ours | baseline | baseline is | ratio | note |",
            "| --- | --- | ---: | ---: | --- | ---: | --- |",
        ]
        for row in section.rows:
            lines.append(
                f"| {row.case} | {row.size} | {_figure(row.ours)} {row.unit} | "
                f"{_figure(row.baseline)} {row.unit} | {row.baseline_name} | "
                f"{_ratio(row.ratio)}x | {row.note} |"
            )
        lines.append("")
        lines += [f"- {note}" for note in section.notes]
        if section.notes:
            lines.append("")
    return "\n".join(lines)


def to_json(sections: list[Section], info: dict[str, Any]) -> dict[str, Any]:
    """The same results as a JSON-ready dict (rows carry their ratio)."""
    return {
        "generated": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": info,
        "sections": [
            {
                "name": section.name,
                "title": section.title,
                "rows": [{**asdict(row), "ratio": row.ratio} for row in section.rows],
                "notes": section.notes,
            }
            for section in sections
        ],
    }


def write(sections: list[Section], out_dir: Path = RESULTS_DIR) -> tuple[Path, Path, str]:
    """Write ``bench.md`` and ``bench.json`` into ``out_dir``; returns their paths and the text."""
    info = machine()
    out_dir.mkdir(parents=True, exist_ok=True)
    text = markdown(sections, info)
    md_path = out_dir / "bench.md"
    json_path = out_dir / "bench.json"
    md_path.write_text(text + "\n", encoding="utf-8")
    json_path.write_text(json.dumps(to_json(sections, info), indent=2) + "\n", encoding="utf-8")
    return md_path, json_path, text


def _ratio(value: float) -> str:
    """Two decimals below 10 (so 0.78 is not shown as 0.8 against a 0.8 target), else one."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"
