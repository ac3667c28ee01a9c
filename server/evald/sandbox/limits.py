"""How much one sandboxed evaluation may use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-run limits; the defaults suit a scoring function over one instance."""

    cpu_seconds: int = 5
    """RLIMIT_CPU: SIGXCPU at this many CPU seconds, SIGKILL one second later."""
    wall_seconds: float = 10.0
    """Wall-clock budget, start-up included; then the whole process group is killed."""
    memory_bytes: int = 512 * 1024 * 1024
    """RLIMIT_AS (address space) of the child."""
    max_output_bytes: int = 64 * 1024
    """Largest answer read back from the child; more is an error, and the child is killed."""
    max_text_chars: int = 8 * 1024
    """Longest explanation or error message passed on."""
    max_code_bytes: int = 256 * 1024
    """Largest source accepted."""
    max_argument_bytes: int = 8 * 1024 * 1024
    """Largest JSON argument (the instance) sent to the child."""
    open_files: int = 8
    """RLIMIT_NOFILE: fds 0-2 and the result pipe are already open."""
    concurrency: int = 4
    """Sandboxed processes running at once; further runs wait their turn."""

    def __post_init__(self) -> None:
        if self.cpu_seconds < 1 or self.wall_seconds <= 0:
            raise ValueError("sandbox CPU and wall time limits must be positive")
        if self.memory_bytes < 32 * 1024 * 1024:
            raise ValueError("sandbox memory limit must be at least 32 MiB")
        if self.concurrency < 1:
            raise ValueError("sandbox concurrency must be at least 1")
