"""LLM judges ("autoraters") behind the judge-backed metrics.

- :mod:`~evald.judges.base`: the :class:`Judge` protocol and the errors a backend call raises.
- :mod:`~evald.judges.backends`: the backends, one module each, found by discovery (their SDKs
  imported on first use).
- :mod:`~evald.judges.config`: the judge configuration (file, ``[judges]`` table, environment).
- :mod:`~evald.judges.runtime`: :class:`Judges` (a server's judges, the config file watched),
  resolution, cache, concurrency, retries, deadline, status codes.

A request reaches its judges through its :class:`evald.call.Call`.
"""

from evald.judges.base import GenerationParams, Judge, JudgeRequest, Media
from evald.judges.output import OutputError
from evald.judges.runtime import Answer, Judges, Session, Target

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
