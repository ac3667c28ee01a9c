"""What one request may use besides its own message: passed explicitly to every metric.

A transport builds one :class:`Call` per request (:meth:`Call.for_request`: the caller's
deadline, the judge-cache switch from its metadata, the request's ``autorater_config``) from the
server's :class:`Services`; a metric that overrides the autorater config derives its own with
:meth:`Call.with_autorater_config`. Computed metrics receive the server's shared default Call:
nothing is built for them per request.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evald.judges.runtime import Judges
    from evald.metrics.catalog import Catalog
    from evald.models.base import Models
    from evald.sandbox import Sandbox
    from evald.store import MetricStore

CACHE_METADATA_KEY = "x-evald-judge-cache"
"""Request metadata (gRPC) / header (HTTP): ``off`` makes this request skip the judge cache."""
_OFF = ("off", "0", "no")
USAGE_TRAILER = "evald-judge-usage"
"""Trailing metadata (gRPC) of a request that made or looked up judge calls: their usage as
compact JSON (:class:`evald.judges.usage.Tally`)."""
USAGE_HEADER = "x-evald-judge-usage"
"""The same JSON as an HTTP response header of the gateway."""


@dataclass(frozen=True)
class Services:
    """What a server shares between requests: its judges, sandbox, metric catalog,
    registered metrics and the models of model-backed metrics."""

    judges: Judges
    sandbox: Sandbox
    metrics: Catalog
    """Every metric the server serves (a metric that refers to another looks it up here)."""
    store: MetricStore | None = None
    models: Models | None = None
    """The runtime of model-backed metrics (BERTScore, toxicity, COMET, MetricX)."""


@dataclass(frozen=True)
class Call:
    """One request's deadline, judge-cache choice and autorater config, and the server's
    services."""

    services: Services
    deadline: float | None = None
    """The caller's deadline as a ``time.monotonic()`` value; None: none."""
    use_cache: bool = True
    """Whether judge answers may come from (and go to) the judge cache."""
    autorater_config: Any | None = None
    """The ``AutoraterConfig`` in force (the request's, or a metric's own); None: unset."""

    @classmethod
    def for_request(
        cls,
        services: Services,
        request: Any,
        time_remaining: float | None = None,
        metadata: Iterable[tuple[str, Any]] = (),
    ) -> Call:
        """The Call of a request (EvaluateInstancesRequest, GenerateInstanceRubricsRequest), its
        time left and its metadata/headers; a request without ``autorater_config`` gets none."""
        has_config = "autorater_config" in request.DESCRIPTOR.fields_by_name
        config = (
            request.autorater_config
            if has_config and request.HasField("autorater_config")
            else None
        )
        use_cache = all(
            not (key.lower() == CACHE_METADATA_KEY and str(value).strip().lower() in _OFF)
            for key, value in metadata
        )
        deadline = None if time_remaining is None else time.monotonic() + time_remaining
        return cls(services, deadline, use_cache, config)

    def with_autorater_config(self, config: Any | None) -> Call:
        """This Call with another autorater config (deadline and cache choice kept)."""
        return dataclasses.replace(self, autorater_config=config)

    def remaining(self) -> float | None:
        """Seconds left before the deadline (negative once passed), or None."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    @property
    def judges(self) -> Judges:
        return self.services.judges

    @property
    def sandbox(self) -> Sandbox:
        return self.services.sandbox

    @property
    def store(self) -> MetricStore | None:
        return self.services.store
