"""Server settings: defaults, overridden by EVALD_* environment variables, overridden by flags."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_PREFIX = "EVALD_"
MAX_MESSAGE_LIMIT = 2**31 - 1
"""gRPC keeps message size limits in a C int."""
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class Settings:
    """Everything ``evald serve`` can be told; each field has an ``EVALD_<NAME>`` variable."""

    host: str = "127.0.0.1"
    port: int = 50051
    max_message_bytes: int = 64 * 1024 * 1024
    tls_cert: Path | None = None
    tls_key: Path | None = None
    grace_seconds: float = 10.0
    reuse_port: bool = False
    """Let several processes share the port (SO_REUSEPORT); off so a clash fails loudly."""
    log_level: str = "INFO"
    http_port: int | None = None
    """Also serve the JSON/HTTP gateway on this port (0 for any); None: gRPC only."""
    http_host: str | None = None
    """Address the HTTP gateway listens on; None: the same as ``host``."""
    max_http_body_bytes: int = 64 * 1024 * 1024
    """Largest HTTP request body; a larger one is answered 413 (RESOURCE_EXHAUSTED)."""
    workers: int = 1
    """Server processes sharing the port (SO_REUSEPORT); 0: one per available core."""
    pin_workers: bool = True
    """With several workers, pin worker i to the i-th available core."""
    scoring_processes: int | None = None
    """Processes per server process that score large batches off the event loop; 0: a thread
    instead; None: one per core of the machine (with --workers: of the supervisor's cores)."""
    custom_code: bool = False
    """Run ``custom_code_execution_spec`` / custom result parsers in the sandbox (off: refused)."""
    custom_code_cpu_seconds: int = 5
    custom_code_wall_seconds: float = 10.0
    custom_code_memory_bytes: int = 512 * 1024 * 1024
    data_dir: Path | None = None
    """Where registered metrics (metrics.sqlite3) and dataset jobs (jobs.sqlite3, outputs/) are
    kept; None: ~/.local/share/evald."""
    job_concurrency: int = 16
    """Rows of one dataset job scored at the same time."""
    max_running_jobs: int = 2
    """Dataset jobs run at the same time by one server process; more wait, QUEUED."""
    # Operations (evald.ops): config file, authentication, limits, metrics, tracing.
    config: Path | None = None
    """TOML/JSON file of these settings (below ``EVALD_*`` variables and flags)."""
    tls_client_ca: Path | None = None
    """PEM CA bundle: require client certificates signed by it (mTLS, both transports)."""
    auth_keys_file: Path | None = None
    """TOML/JSON file of API keys; with it (or ``EVALD_API_KEYS``) every call needs a key."""
    auth_open_health: bool = True
    """Let the gRPC health service and ``/healthz`` answer without a key (probes send none)."""
    auth_open_reflection: bool = False
    """Let gRPC server reflection answer without a key."""
    max_instances: int = 100_000
    """Most instances in one request; more is INVALID_ARGUMENT naming the limit."""
    max_template_bytes: int = 1024 * 1024
    """Largest judge prompt template or system instruction (UTF-8 bytes)."""
    max_code_bytes: int = 256 * 1024
    """Largest custom-code function or result parser (UTF-8 bytes)."""
    max_concurrent_per_key: int = 0
    """Calls one API key (or, without auth, all callers together) may have in flight; more are
    RESOURCE_EXHAUSTED; 0: no limit. A key's own ``max_concurrent`` entry wins."""
    metrics_port: int | None = None
    """Serve Prometheus metrics on this port (0 for any); None: not served."""
    metrics_host: str | None = None
    """Address the metrics endpoint listens on; None: the same as ``host``."""
    tracing: bool = False
    """Export OpenTelemetry spans (needs opentelemetry-sdk; OTLP if its exporter is installed)."""
    # Judges (evald.judges.config).
    judge_config: Path | None = None
    """TOML/JSON judge config file, watched: edits apply to the next judge call."""
    judges: Mapping[str, Any] | None = field(default=None, compare=False, metadata={"flag": False})
    """The config file's ``[judges]`` table (a judge config file's content, each judge a
    sub-table); only the config file sets it: no flag, no variable."""

    def __post_init__(self) -> None:
        # An IPv6 literal may be given bracketed ("[::1]", as in URLs) or bare ("::1").
        object.__setattr__(self, "host", self.host.strip().removeprefix("[").removesuffix("]"))
        if not self.host:
            raise ValueError("host must not be empty (use 0.0.0.0 or :: to listen everywhere)")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be within 0..65535, got {self.port}")
        if not 0 < self.max_message_bytes <= MAX_MESSAGE_LIMIT:
            raise ValueError(
                f"max message size must be within 1..{MAX_MESSAGE_LIMIT} bytes, "
                f"got {self.max_message_bytes}"
            )
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and a key (--tls-cert and --tls-key)")
        if not self.grace_seconds >= 0:  # also rejects NaN
            raise ValueError(f"grace period must not be negative, got {self.grace_seconds}")
        if self.log_level.upper() not in LOG_LEVELS:
            raise ValueError(
                f"log level must be one of {', '.join(LOG_LEVELS)}, got {self.log_level!r}"
            )
        if self.http_port is not None and not 0 <= self.http_port <= 65535:
            raise ValueError(f"HTTP port must be within 0..65535, got {self.http_port}")
        if self.max_http_body_bytes <= 0:
            raise ValueError(f"max HTTP body size must be positive, got {self.max_http_body_bytes}")
        if self.custom_code_cpu_seconds < 1 or not self.custom_code_wall_seconds > 0:
            raise ValueError("custom code CPU and wall time limits must be positive")
        if self.custom_code_memory_bytes < 32 * 1024 * 1024:
            raise ValueError("custom code memory limit must be at least 32 MiB")
        if self.job_concurrency < 1 or self.max_running_jobs < 1:
            raise ValueError("job_concurrency and max_running_jobs must be at least 1")
        if self.workers < 0:
            raise ValueError(f"workers must be 0 (one per core) or more, got {self.workers}")
        if self.scoring_processes is not None and self.scoring_processes < 0:
            raise ValueError(
                f"scoring processes must be 0 (use a thread) or more, got {self.scoring_processes}"
            )
        if self.tls_client_ca is not None and not self.tls:
            raise ValueError(
                "client certificates (--tls-client-ca) need TLS (--tls-cert, --tls-key)"
            )
        for name in ("max_instances", "max_template_bytes", "max_code_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_concurrent_per_key < 0:
            raise ValueError(
                f"max_concurrent_per_key must be 0 (no limit) or more, "
                f"got {self.max_concurrent_per_key}"
            )
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics port must be within 0..65535, got {self.metrics_port}")

    def data_root(self) -> Path:
        """``data_dir``, or by default ``$XDG_DATA_HOME/evald`` (``~/.local/share/evald``)."""
        if self.data_dir is not None:
            return self.data_dir
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "evald"

    @property
    def tls(self) -> bool:
        """Whether the server speaks TLS."""
        return self.tls_cert is not None

    @classmethod
    def load(
        cls, overrides: Mapping[str, object] | None = None, env: Mapping[str, str] | None = None
    ) -> Settings:
        """Defaults, then the config file (``config`` override or ``EVALD_CONFIG``), then
        ``EVALD_*`` variables from ``env``, then non-None ``overrides``."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        config = (overrides or {}).get("config") or env.get(ENV_PREFIX + "CONFIG") or None
        if config is not None:
            from evald.ops import configfile

            fields = [(f.name, str(f.type)) for f in dataclasses.fields(cls)]
            values.update(configfile.read(Path(str(config)), fields))
            values["config"] = Path(str(config))
        for setting in dataclasses.fields(cls):
            raw = env.get(ENV_PREFIX + setting.name.upper())
            if raw is not None and raw != "" and setting.name != "judges":
                values[setting.name] = _parse(setting.name, str(setting.type), raw)
        for name, value in (overrides or {}).items():
            if value is not None:
                values[name] = value
        return cls(**values)  # type: ignore[arg-type]


def _parse(name: str, kind: str, raw: str) -> object:
    try:
        if kind.startswith("int"):
            return int(raw)
        if kind.startswith("float"):
            return float(raw)
        if kind.startswith("bool"):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if kind.startswith("Path"):
            return Path(raw)
    except ValueError:
        raise ValueError(f"{ENV_PREFIX}{name.upper()}={raw!r} is not a valid {kind}") from None
    return raw
