"""Server settings: defaults, overridden by EVALD_* environment variables, overridden by flags."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_PREFIX = "EVALD_"


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

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and a key (--tls-cert and --tls-key)")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be within 0..65535, got {self.port}")
        if self.max_message_bytes <= 0:
            raise ValueError("max message size must be positive")
        if self.grace_seconds < 0:
            raise ValueError("grace period must not be negative")

    @property
    def tls(self) -> bool:
        """Whether the server speaks TLS."""
        return self.tls_cert is not None

    @classmethod
    def load(
        cls, overrides: Mapping[str, object] | None = None, env: Mapping[str, str] | None = None
    ) -> Settings:
        """Defaults, then ``EVALD_*`` variables from ``env``, then non-None ``overrides``."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for field in dataclasses.fields(cls):
            raw = env.get(ENV_PREFIX + field.name.upper())
            if raw is not None and raw != "":
                values[field.name] = _parse(field.name, str(field.type), raw)
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
