"""LLM judges ("autoraters") behind the judge-backed metrics.

- :mod:`~evald.judges.base`: the :class:`Judge` protocol and the errors a backend call raises.
- :mod:`~evald.judges.gemini` / :mod:`~evald.judges.openai_compat`: the backends (imported lazily).
- :mod:`~evald.judges.config`: the judge config file and ``EVALD_JUDGE_*`` variables.
- :mod:`~evald.judges.runtime`: resolution, cache, concurrency, retries, deadline, status codes.
- :mod:`~evald.judges.call`: the per-request context (autorater config, deadline, cache opt-out).
"""

from evald.judges.base import GenerationParams, Judge, JudgeRequest
from evald.judges.call import CACHE_METADATA_KEY, CallContext, from_request, scope
from evald.judges.output import OutputError
from evald.judges.runtime import Answer, Session, Target, session

__all__ = [
    "CACHE_METADATA_KEY",
    "Answer",
    "CallContext",
    "GenerationParams",
    "Judge",
    "JudgeRequest",
    "OutputError",
    "Session",
    "Target",
    "from_request",
    "scope",
    "session",
]
