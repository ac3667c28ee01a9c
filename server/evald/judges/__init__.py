"""LLM judges ("autoraters") behind the judge-backed metrics.

- :mod:`~evald.judges.base`: the :class:`Judge` protocol and the errors a backend call raises.
- :mod:`~evald.judges.backends`: the backends, one module each, found by discovery (an SDK a
  backend needs imported on first use); :mod:`~evald.judges.rest` is the REST call they share.
- :mod:`~evald.judges.config`: the judge configuration (file, ``[judges]`` table, environment).
- :mod:`~evald.judges.runtime`: :class:`Judges` (a server's judges, the config file watched),
  resolution, cache, concurrency, retries, deadline, status codes.
- :mod:`~evald.judges.usage`: what judge calls cost, per request and in Prometheus counters.

A request reaches its judges through its :class:`evald.call.Call`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evald.judges.base import GenerationParams, Judge, JudgeRequest, Media
from evald.judges.output import OutputError

if TYPE_CHECKING:
    from evald.judges.runtime import Answer, Judges, Session, Target

_RUNTIME = frozenset({"Answer", "Judges", "Session", "Target"})

__all__ = [
    "Answer",
    "GenerationParams",
    "Judge",
    "JudgeRequest",
    "Judges",
    "Media",
    "OutputError",
    "Session",
    "Target",
]


def __getattr__(name: str) -> Any:
    # The runtime (httpx, the cache, the backends) loads on first use: a client that only
    # reads judge usage (``evald evaluate --server``) does not pay ~0.1 s to import it.
    if name in _RUNTIME:
        from evald.judges import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
