"""Bounded retries with exponential backoff and jitter, inside a deadline."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently one judge call is retried.

    Attempt ``n`` (0-based) that fails transiently is followed by a pause drawn uniformly from
    ``[b/2, b]`` with ``b = min(max_backoff, initial_backoff * 2**n)`` ("equal jitter"): the pause
    grows exponentially, and concurrent callers that failed together do not retry together.
    """

    max_attempts: int = 4
    initial_backoff: float = 0.5
    max_backoff: float = 8.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("retry.max_attempts must be at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0:
            raise ValueError("retry backoff seconds must not be negative")

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based)."""
        ceiling = min(self.max_backoff, self.initial_backoff * (2**attempt))
        return (rng or random).uniform(ceiling / 2, ceiling)
