"""Dataset evaluation jobs: ``EvaluateDataset`` as a long-running operation.

* :mod:`evald.jobs.sources`: reading JSONL / JSON / CSV rows into ``EvaluationInstance``\\ s;
* :mod:`evald.jobs.rows`: scoring one row with every metric (shared with ``evald evaluate``);
* :mod:`evald.jobs.store`: jobs and per-row results in SQLite under the data dir;
* :mod:`evald.jobs.runner`: concurrency, progress, resume after a restart, cancellation;
* :mod:`evald.jobs.outputs`: ``results.jsonl``, ``aggregation.json``, ``AggregationOutput``;
* :mod:`evald.jobs.operations`: the gRPC ``google.longrunning.Operations`` service.
"""

from __future__ import annotations

LRO_SERVICE = "google.longrunning.Operations"
"""The standard operations service name, served beside ``evald.v1.Operations``."""
