"""Persistence of registered metric definitions (SQLite)."""

from evald.store.metrics import MetricStore, StoredMetric

__all__ = ["MetricStore", "StoredMetric"]
