"""Ray engine section: what scoring a dataset job's rows as Ray tasks costs per row, against
scoring them in the server process.

One 10,000-row job of computed metrics (exact_match and BLEU) runs through the same job runner
twice: ``--engine local`` and ``--engine ray`` on a local cluster of this machine's cores
(started before the clock, its workers warmed by a small job first: the one-off start-up is
reported in a note). Wall time and CPU per row are measured for each; the CPU is that of every
process involved (this one and, for Ray, its GCS, raylet and workers), read from /proc. The two
results.jsonl files are compared byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from evald.jobs.ray_engine import BATCH_ROWS

from bench.report import Row, Section

ROWS, QUICK_ROWS = 10_000, 500


def tree_cpu(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and every process under it, now."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / ticks
    total = 0.0
    for pid, seconds in cpu.items():
        walk = pid
        while walk and walk != root:
            walk = parents.get(walk, 0)
        if walk == root:
            total += seconds
    return total


def write_rows(path: Path, count: int) -> Path:
    with path.open("w") as handle:
        for i in range(count):
            row = {"response": f"the answer is {i % 10} of {i}", "reference": "the answer is 0"}
            handle.write(json.dumps(row) + "\n")
    return path


def run_job(settings: Any, data: Path, out: Path) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (this process tree) and results.jsonl of one job."""
    from evald import api
    from evald.app import App

    request = api.messages.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(exact_match_spec={})
    request.metrics.add(bleu_spec={})
    request.output_config.gcs_destination.output_uri_prefix = str(out)

    async def scenario() -> tuple[float, float, bytes]:
        app = App.build(settings)
        await app.start()
        try:
            cpu, wall = tree_cpu(os.getpid()), time.perf_counter()
            job = await app.jobs.runner.submit(request)
            job = await app.jobs.runner.wait(job.name, 600)
            wall, cpu = time.perf_counter() - wall, tree_cpu(os.getpid()) - cpu
            assert job.state == "SUCCEEDED", job
            return wall, cpu, (Path(job.output_dir) / "results.jsonl").read_bytes()
        finally:
            await app.aclose()

    return asyncio.run(scenario())


def run(quick: bool) -> Section:
    """The ray section (``quick``: 500 rows)."""
    section = Section("ray", "Ray engine: per-row cost of --engine ray vs local")
    try:
        import ray
    except ImportError:
        section.notes.append("skipped: ray is not installed (pip install 'evald[ray]')")
        return section
    from evald.config import Settings

    count = QUICK_ROWS if quick else ROWS
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="evald-bench-ray-") as tmp:
        root = Path(tmp)
        data = write_rows(root / "rows.jsonl", count)
        started = time.perf_counter()
        context: Any = ray.init(
            num_cpus=cores,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=100 * 1024 * 1024,
        )
        try:
            cluster_start = time.perf_counter() - started

            def settings(engine: str, name: str) -> Settings:
                return Settings(
                    data_dir=root / name,
                    dataset_root=root,
                    output_root=root,
                    engine=engine,
                    ray_address=str(context.address_info["gcs_address"]),
                )

            # Enough batches that every worker gets some (each builds its evaluator once).
            warm = write_rows(root / "warm.jsonl", 4 * cores * BATCH_ROWS)
            # The same settings as the measured job: workers keep their evaluator per settings.
            warm_up, _, _ = run_job(settings("ray", "ray"), warm, root / "warm-out")
            local_wall, local_cpu, local_results = run_job(
                settings("local", "local"), data, root / "local-out"
            )
            ray_wall, ray_cpu, ray_results = run_job(settings("ray", "ray"), data, root / "ray-out")
        finally:
            ray.shutdown()
    size = f"{count:,} rows, exact_match + BLEU"
    same = "identical" if ray_results == local_results else "DIFFERENT"
    note = f"{cores} CPUs; results.jsonl {same}"
    section.rows += [
        Row("wall time per row, ray vs local", size, ray_wall / count * 1e6,
            local_wall / count * 1e6, "local", "µs/row", note),
        Row("CPU per row (all processes), ray vs local", size, ray_cpu / count * 1e6,
            local_cpu / count * 1e6, "local", "µs/row", note),
    ]  # fmt: skip
    section.notes.append(
        f"one-off costs, not in the rows: cluster start {cluster_start:.1f} s, first job "
        f"(workers import evald and build their evaluator) {warm_up:.1f} s"
    )
    return section
