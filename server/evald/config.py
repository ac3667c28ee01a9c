"""Server settings: defaults, overridden by EVALD_* environment variables, overridden by flags."""

from __future__ import annotations

import dataclasses
import os
import resource
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evald.ops import configfile

ENV_PREFIX = "EVALD_"
MAX_MESSAGE_LIMIT = 2**31 - 1
"""gRPC keeps message size limits in a C int."""
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def setting(default: Any, help: str, *, flag: str = "", group: str = "", env: str = "") -> Any:
    """A field of :class:`Settings` with its help text: the one place a setting is described
    (``evald serve --help`` is generated from it, with the default appended). ``flag``: the
    command-line name when it is not ``--<name>``; ``group``: settings other commands share
    (``http``: the gateway's); ``env``: the variable when it is not ``EVALD_<NAME>``."""
    metadata = {"help": help, "flag": flag, "group": group, "env": env}
    return field(default=default, metadata=metadata)


def env_name(setting: dataclasses.Field[Any]) -> str:
    """The environment variable of a :class:`Settings` field."""
    return str(setting.metadata.get("env") or ENV_PREFIX + setting.name.upper())


@dataclass(frozen=True)
class Settings:
    """Everything ``evald serve`` can be told; each field has an ``EVALD_<NAME>`` variable and
    a flag (see :func:`setting`)."""

    host: str = setting("127.0.0.1", "address to listen on (:: or 0.0.0.0 for every interface)")
    port: int = setting(50051, "port to listen on, 0 for any")
    max_message_bytes: int = setting(64 * 1024 * 1024, "largest request or response")
    tls_cert: Path | None = setting(None, "PEM certificate chain: serve TLS")
    tls_key: Path | None = setting(None, "PEM private key for --tls-cert")
    grace_seconds: float = setting(10.0, "how long in-flight calls may finish on SIGTERM/SIGINT")
    reuse_port: bool = setting(
        False, "share the port with other processes (SO_REUSEPORT); off so a clash fails loudly"
    )
    log_level: str = setting("INFO", "DEBUG, INFO, WARNING, ERROR or CRITICAL")
    http_port: int | None = setting(
        None, "also serve the JSON/HTTP gateway on this port (0 for any)", group="http"
    )
    http_host: str | None = setting(
        None, "address the HTTP gateway listens on (default: --host)", group="http"
    )
    max_http_body_bytes: int = setting(
        64 * 1024 * 1024, "largest HTTP request body; a larger one is answered 413", group="http"
    )
    http_idle_seconds: float = setting(
        15.0,
        "close an HTTP connection that sends no complete request head for this long (new or "
        "kept alive), or whose body pauses this long",
        group="http",
    )
    cors_origins: tuple[str, ...] = setting(
        (),
        "let web pages from this origin (scheme://host[:port]) call the HTTP gateway (CORS); "
        "repeatable, or several origins separated by commas",
        flag="--cors-origin",
        group="http",
        env="EVALD_CORS_ORIGIN",
    )
    max_http_connections: int = setting(
        0,
        "HTTP connections open at once; more are closed at once (0: a quarter of the "
        "open-file limit, so gRPC and the judges keep descriptors)",
        group="http",
    )
    grpc_idle_seconds: float = setting(
        300.0, "close a gRPC connection with no call for this long (clients reconnect)"
    )
    max_pending_calls: int = setting(
        20_000,
        "gRPC calls that may wait, per server process, for the server to take them up; gRPC "
        "cancels calls beyond (its own default is 3,000)",
    )
    workers: int = setting(
        1, "server processes sharing the port (SO_REUSEPORT); 0: one per available core"
    )
    pin_workers: bool = setting(True, "with several workers, pin worker i to the i-th core")
    scoring_processes: int | None = setting(
        None,
        "processes per server process that score large batches off the event loop; 0: a "
        "thread instead (default: one per core; with --workers, per worker)",
    )
    custom_code: bool = setting(
        False,
        "run custom-code metrics and result parsers in the sandbox (refused when off)",
        flag="--enable-custom-code",
    )
    custom_code_cpu_seconds: int = setting(5, "CPU seconds per custom-code run")
    custom_code_wall_seconds: float = setting(10.0, "wall seconds per custom-code run")
    custom_code_memory_bytes: int = setting(512 * 1024 * 1024, "address space per custom-code run")
    data_dir: Path | None = setting(
        None,
        "where registered metrics and dataset jobs are kept (default: ~/.local/share/evald)",
    )
    dataset_root: Path | None = setting(
        None,
        "EvaluateDataset reads server-local files only under this directory "
        "(default: <data dir>/datasets)",
    )
    output_root: Path | None = setting(
        None,
        "EvaluateDataset writes server-local outputs only under this directory "
        "(default: <data dir>/outputs)",
    )
    job_concurrency: int = setting(16, "rows of one dataset job scored at the same time")
    max_running_jobs: int = setting(2, "dataset jobs run at once by one process; more wait")
    metric_modules: str = setting(
        "",
        "comma-separated Python modules or packages whose metrics the server also serves "
        "(importable by the server, e.g. installed or on PYTHONPATH)",
    )
    # Operations (evald.ops): config file, authentication, limits, metrics, tracing. API keys
    # are never flags: a flag's value shows in ``ps`` and shell history.
    config: Path | None = setting(
        None, "TOML/JSON file of these settings (EVALD_* variables and flags win)"
    )
    tls_client_ca: Path | None = setting(
        None, "PEM CA: require client certificates it signed (mTLS, both transports)"
    )
    auth_keys_file: Path | None = setting(
        None, "TOML/JSON file of API keys; every call then needs one (also EVALD_API_KEYS)"
    )
    auth_open_health: bool = setting(
        True, "serve the health service and /healthz without a key (probes send none)"
    )
    auth_open_reflection: bool = setting(False, "serve gRPC server reflection without a key")
    auth_open_openapi: bool = setting(False, "serve the gateway's /openapi.json without a key")
    auth_open_metrics: bool = setting(False, "serve Prometheus /metrics without a key")
    max_instances: int = setting(100_000, "most instances in one request")
    max_metrics: int = setting(256, "most entries of metrics and metric_sources in one request")
    max_text_bytes: int = setting(
        1024 * 1024, "longest text of one field of a request, e.g. a response (UTF-8 bytes)"
    )
    max_template_bytes: int = setting(
        1024 * 1024, "largest judge prompt template or system instruction (UTF-8 bytes)"
    )
    max_code_bytes: int = setting(
        256 * 1024, "largest custom-code function or result parser (UTF-8 bytes)"
    )
    max_concurrent_per_key: int = setting(
        0, "calls one API key (or, without auth, all callers) may have in flight; 0: no limit"
    )
    metrics_port: int | None = setting(None, "serve Prometheus metrics on this port (0 for any)")
    metrics_host: str | None = setting(
        None, "address the metrics endpoint listens on (default: --host)"
    )
    tracing: bool = setting(False, "export OpenTelemetry spans (needs opentelemetry-sdk)")
    # Judges (evald.judges.config).
    judge_config: Path | None = setting(
        None, "TOML/JSON judge config file, watched: edits apply to the next judge call"
    )
    judges: Mapping[str, Any] | None = field(default=None, compare=False, metadata={"flag": None})
    """The config file's ``[judges]`` table (a judge config file's content, each judge a
    sub-table); only the config file sets it: no flag, no variable."""
    # NeMo Evaluator's API (evald.nemo) and the models it evaluates (evald.targets).
    hf_endpoint: str | None = setting(
        None,
        "Hugging Face Hub-compatible data store that NeMo jobs' hf:// datasets are read from "
        "(NeMo Data Store: http://HOST:3000/v1/hf); its token comes from EVALD_HF_TOKEN",
    )
    hf_datasets_dir: Path | None = setting(
        None,
        "directory laid out as NAMESPACE/NAME/FILES that NeMo jobs' hf:// datasets are read "
        "from (checked before --hf-endpoint)",
    )
    target_concurrency: int = setting(
        32,
        "model calls in flight per model endpoint, across jobs (a config's params.parallelism "
        "bounds the rows one job has in flight)",
    )
    # Model-backed metrics (evald.models): weights found offline, never downloaded.
    models_dir: Path | None = setting(
        None,
        "directory of the models of model-backed metrics (BERTScore, toxicity, COMET, "
        "MetricX), each in a folder named like its Hugging Face id (roberta-large, "
        "unitary/unbiased-toxic-roberta); nothing is downloaded",
    )
    model_device: str = setting(
        "cpu", "device model-backed metrics run on: cpu, cuda or cuda:N (needs evald[models])"
    )
    max_loaded_models: int = setting(
        2,
        "models held in memory at once, each by its own worker process; another model stops "
        "the least recently used one",
    )
    model_batch_size: int = setting(
        32, "most items of one forward pass (concurrent calls to a model are batched)"
    )
    model_batch_wait_ms: float = setting(
        5.0,
        "quiet time after the last call that closes a forward pass's batch (held at most 4x "
        "this), in milliseconds",
    )
    target_timeout_seconds: float = setting(
        120.0, "longest one model call may take (a config's params.request_timeout sets it)"
    )
    database_url: str | None = setting(
        None,
        "postgresql://user:password@host:5432/db: keep jobs, NeMo entities, registered metrics "
        "and caches in this shared PostgreSQL database (replicas share jobs) instead of SQLite "
        "files in the data dir (needs evald[postgres])",
    )
    database_pool_size: int = setting(10, "most PostgreSQL connections one process opens")
    job_lease_seconds: float = setting(
        15.0,
        "a dataset job whose runner sent no heartbeat for this long is taken over by another "
        "process (a replica, or this one after a restart)",
    )
    # Scoring dataset jobs on a Ray cluster (evald.jobs.ray_engine; needs evald[ray]).
    engine: str = setting(
        "local", "where dataset jobs score their rows: local (this process) or ray (a Ray cluster)"
    )
    ray_address: str = setting(
        "auto",
        "the Ray cluster of --engine ray: auto (the one this node joined), ray://HOST:PORT, "
        "HOST:PORT, or local (start one in this process)",
    )

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
        object.__setattr__(self, "cors_origins", cors_origins(self.cors_origins))
        if not self.http_idle_seconds > 0 or not self.grpc_idle_seconds > 0:
            raise ValueError("http_idle_seconds and grpc_idle_seconds must be positive")
        if self.max_pending_calls < 1:
            raise ValueError(f"max_pending_calls must be 1 or more, got {self.max_pending_calls}")
        if self.max_http_connections < 0:
            raise ValueError("max_http_connections must be 0 (automatic) or more")
        if self.max_http_body_bytes <= 0:
            raise ValueError(f"max HTTP body size must be positive, got {self.max_http_body_bytes}")
        if self.custom_code_cpu_seconds < 1 or not self.custom_code_wall_seconds > 0:
            raise ValueError("custom code CPU and wall time limits must be positive")
        if self.custom_code_memory_bytes < 32 * 1024 * 1024:
            raise ValueError("custom code memory limit must be at least 32 MiB")
        if self.target_concurrency < 1 or not self.target_timeout_seconds > 0:
            raise ValueError("target_concurrency and target_timeout_seconds must be positive")
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
        for name in (
            "max_instances",
            "max_metrics",
            "max_text_bytes",
            "max_template_bytes",
            "max_code_bytes",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_concurrent_per_key < 0:
            raise ValueError(
                f"max_concurrent_per_key must be 0 (no limit) or more, "
                f"got {self.max_concurrent_per_key}"
            )
        if self.max_loaded_models < 1 or self.model_batch_size < 1:
            raise ValueError("max_loaded_models and model_batch_size must be at least 1")
        if not 0 <= self.model_batch_wait_ms <= 60_000:  # also rejects NaN
            raise ValueError(
                f"model_batch_wait_ms must be within 0..60000, got {self.model_batch_wait_ms}"
            )
        if self.database_url is not None and not self.database_url.startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError("database_url must start with postgresql:// (or postgres://)")
        if self.database_pool_size < 1:
            raise ValueError(
                f"database_pool_size must be at least 1, got {self.database_pool_size}"
            )
        if not self.job_lease_seconds >= 2:  # also rejects NaN; heartbeats come every second
            raise ValueError(f"job_lease_seconds must be at least 2, got {self.job_lease_seconds}")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics port must be within 0..65535, got {self.metrics_port}")
        if self.engine not in ("local", "ray"):
            raise ValueError(f"engine must be local or ray, got {self.engine!r}")
        if not self.ray_address:
            raise ValueError("ray_address must not be empty (auto, ray://HOST:PORT or local)")

    def data_root(self) -> Path:
        """``data_dir``, or by default ``$XDG_DATA_HOME/evald`` (``~/.local/share/evald``)."""
        if self.data_dir is not None:
            return self.data_dir
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "evald"

    def dataset_dir(self) -> Path:
        """``dataset_root``, or by default ``<data dir>/datasets``."""
        return self.dataset_root or self.data_root() / "datasets"

    def output_dir(self) -> Path:
        """``output_root``, or by default ``<data dir>/outputs``."""
        return self.output_root or self.data_root() / "outputs"

    def http_connection_limit(self) -> int:
        """``max_http_connections``, or by default a quarter of the open-file limit."""
        if self.max_http_connections:
            return self.max_http_connections
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return max(16, (soft if soft != resource.RLIM_INFINITY else 65536) // 4)

    def metric_module_names(self) -> list[str]:
        """``metric_modules`` as a list of module names."""
        return [name.strip() for name in self.metric_modules.split(",") if name.strip()]

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
            fields = [(f.name, str(f.type)) for f in dataclasses.fields(cls)]
            values.update(configfile.read(Path(str(config)), fields))
            values["config"] = Path(str(config))
        for setting in dataclasses.fields(cls):
            raw = env.get(env_name(setting))
            if raw is not None and raw != "" and setting.name != "judges":
                values[setting.name] = _parse(setting.name, str(setting.type), raw)
        for name, value in (overrides or {}).items():
            if value is not None:
                values[name] = value
        return cls(**values)  # type: ignore[arg-type]


def cors_origins(value: str | Sequence[str]) -> tuple[str, ...]:
    """Origins from a comma-separated string (a variable, one flag) or a sequence of them
    (a repeated flag, the config file), each checked to be ``scheme://host[:port]``: a browser
    sends exactly that in its ``Origin`` header, and an origin is compared as a whole. ``*`` is
    refused: the gateway answers only the origins it was told."""
    parts = [value] if isinstance(value, str) else list(value)
    origins: list[str] = []
    for part in parts:
        for raw in str(part).split(","):
            origin = raw.strip().removesuffix("/")
            if not origin:
                continue
            parsed = urlsplit(origin)
            if (
                parsed.scheme not in ("http", "https")
                or not parsed.netloc
                or parsed.path
                or parsed.query
                or parsed.fragment
                or "@" in parsed.netloc
            ):
                raise ValueError(
                    f"CORS origin must be scheme://host[:port], e.g. https://example.com, "
                    f"got {raw.strip()!r}"
                )
            if origin.lower() not in origins:
                origins.append(origin.lower())
    return tuple(origins)


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
