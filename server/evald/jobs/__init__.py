"""Dataset evaluation jobs: ``EvaluateDataset`` as a long-running operation.

* :mod:`evald.jobs.sources`: reading JSONL / JSON / CSV rows into ``EvaluationInstance``\\ s;
* :mod:`evald.jobs.rows`: scoring one row with every metric (shared with ``evald evaluate``);
* :mod:`evald.jobs.store`: jobs and per-row results in SQLite under the data dir;
* :mod:`evald.jobs.runner`: concurrency, progress, resume after a restart, cancellation;
* :mod:`evald.jobs.outputs`: ``results.jsonl``, ``aggregation.json``, ``AggregationOutput``;
* :mod:`evald.jobs.operations`: the gRPC ``google.longrunning.Operations`` service.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evald.config import Settings

LRO_SERVICE = "google.longrunning.Operations"
"""The standard operations service name, served beside ``evald.v1.Operations``."""


def build(settings: Settings, evaluator: Any) -> Any:
    """The :class:`~evald.jobs.operations.OperationsService` of a server (runner not started)."""
    from evald.jobs.operations import OperationsService
    from evald.jobs.runner import JobRunner
    from evald.metric_api.service import default_data_dir

    data_dir: Path = settings.data_dir if settings.data_dir is not None else default_data_dir()
    runner = JobRunner(
        data_dir,
        evaluator.evaluate_instances,
        concurrency=settings.job_concurrency,
        max_jobs=settings.max_running_jobs,
    )
    return OperationsService(runner)
