"""API keys and bearer tokens, checked alike on gRPC (metadata) and HTTP (headers).

A caller presents a key as ``authorization: Bearer <key>`` or ``x-goog-api-key: <key>`` (the
header Google's API-key clients send). Keys come from a keys file (``--auth-keys-file``,
TOML or JSON) and/or ``EVALD_API_KEYS`` (comma-separated); never from a flag, whose value would
show in ``ps``. Keys file::

    [[keys]]
    name = "ci"                          # shown in logs and metrics instead of the key
    key = "s3cr3t-ci-key"                # or: sha256 = "<hex digest of the key>"
    expires = 2030-01-01T00:00:00Z       # optional; after it the key is refused
    max_concurrent = 4                   # optional; calls in flight for this key
    role = "annotator"                   # optional; "admin" (default) or "annotator"

Only SHA-256 digests are kept in memory; a presented key is hashed once and compared with every
entry by ``hmac.compare_digest`` (no early exit), so the time taken says nothing about which key
or how much of it matched. The file is re-read when it changes (key rotation without restart).
A refusal names what is wrong (missing, not valid, expired), never the key.

A key's role is ``admin`` (everything; the default, so existing keys keep working, and every
``EVALD_API_KEYS`` key) or ``annotator`` (only the human-evaluation rating calls: see
:data:`ANNOTATOR_PREFIX`, enforced by :class:`evald.ops.interceptor.Guard`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2

from evald.errors import EvalError
from evald.tables import read_table

log = logging.getLogger(__name__)

ENV_KEYS = "EVALD_API_KEYS"
AUTHORIZATION = "authorization"
API_KEY_HEADER = "x-goog-api-key"
DOMAIN = "evald"
RELOAD_SECONDS = 1.0
"""How often at most the keys file is checked for changes."""
HOW_TO = f"send '{AUTHORIZATION}: Bearer <key>' or '{API_KEY_HEADER}: <key>'"


class Unauthenticated(EvalError):
    """No valid credential; ``reason`` is the google.rpc.ErrorInfo reason."""

    code = grpc.StatusCode.UNAUTHENTICATED

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    def details(self) -> list[any_pb2.Any]:
        packed = any_pb2.Any()
        packed.Pack(error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN))
        return [packed]


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key's name, its own concurrency limit if it has one, its role."""

    name: str
    max_concurrent: int | None = None
    role: str = "admin"


ADMIN = "admin"
ANNOTATOR = "annotator"
ROLES = (ADMIN, ANNOTATOR)
ANNOTATOR_PREFIX = "/evald.human.Rating/"
"""The methods an annotator key may call: the human-evaluation rating calls (each of which
further admits only the tasks assigned to that key)."""


ANONYMOUS = Principal("anonymous")
"""The caller when authentication is off (an admin: with no keys, everyone is)."""


@dataclass(frozen=True)
class KeyEntry:
    """One accepted key, by digest."""

    name: str
    digest: bytes
    expires: datetime | None = None
    max_concurrent: int | None = None
    role: str = ADMIN

    def __repr__(self) -> str:  # the digest is not the key, but has no business in a log either
        return f"KeyEntry(name={self.name!r}, expires={self.expires!r})"


def digest(key: str) -> bytes:
    """SHA-256 of a key, the form keys are kept and compared in."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


def presented_key(metadata: Iterable[tuple[str, Any]]) -> str | None:
    """The key in gRPC metadata or forwarded HTTP headers (``authorization`` first).

    Raises Unauthenticated for an ``authorization`` value that is not ``Bearer <token>``.
    """
    api_key: str | None = None
    for name, value in metadata:
        name = name.lower()
        if name == AUTHORIZATION:
            text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
            scheme, _, token = text.strip().partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated(
                    f"the authorization header must be 'Bearer <key>'; {HOW_TO}",
                    "CREDENTIALS_MISSING",
                )
            return token.strip()
        if name == API_KEY_HEADER and api_key is None:
            api_key = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return api_key.strip() if api_key is not None else None


class KeyStore:
    """The accepted keys: from a file (re-read on change) and/or a fixed list."""

    def __init__(
        self, entries: Sequence[KeyEntry] = (), path: Path | None = None, clock: Any = time.time
    ) -> None:
        self._fixed = tuple(entries)
        self.path = path
        self._clock = clock
        self._file: tuple[KeyEntry, ...] = ()
        self._stamp: tuple[int, int] | None = None
        self._checked = 0.0
        if path is not None:
            self._file = read_keys_file(path)
            self._stamp = _stamp(path)
        if not self._fixed and not self._file:
            raise ValueError("authentication is on but no API key is configured")

    @classmethod
    def from_settings(cls, keys_file: Path | None, env: Mapping[str, str]) -> KeyStore | None:
        """The store ``--auth-keys-file`` and ``EVALD_API_KEYS`` ask for; None: auth is off."""
        raw = env.get(ENV_KEYS, "")
        keys = [k.strip() for k in raw.split(",") if k.strip()]
        if keys_file is None and not keys:
            return None
        entries = [KeyEntry(f"env-{i + 1}", digest(k)) for i, k in enumerate(keys)]
        return cls(entries, keys_file)

    @property
    def entries(self) -> tuple[KeyEntry, ...]:
        """Every accepted key (re-reading the file first if it changed)."""
        self._refresh()
        return self._fixed + self._file

    def authenticate(self, metadata: Iterable[tuple[str, Any]]) -> Principal:
        """The caller the metadata proves; raises Unauthenticated otherwise."""
        key = presented_key(metadata)
        if key is None:
            raise Unauthenticated(
                f"this server requires an API key; {HOW_TO}", "CREDENTIALS_MISSING"
            )
        wanted = digest(key)
        found: KeyEntry | None = None
        for entry in self.entries:  # every entry, match or not: no early exit
            if hmac.compare_digest(entry.digest, wanted) and found is None:
                found = entry
        if found is None:
            raise Unauthenticated("the API key is not valid", "API_KEY_INVALID")
        if found.expires is not None and self._clock() >= found.expires.timestamp():
            raise Unauthenticated(
                f"the API key '{found.name}' expired at {found.expires.isoformat()}",
                "API_KEY_EXPIRED",
            )
        return Principal(found.name, found.max_concurrent, found.role)

    def _refresh(self) -> None:
        if self.path is None:
            return
        now = time.monotonic()
        if now - self._checked < RELOAD_SECONDS:
            return
        self._checked = now
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        try:
            self._file = read_keys_file(self.path)
        except ValueError as exc:
            # Keep serving with the keys we have; a half-written file must not lock everyone out.
            log.warning("keys file not reloaded: %s", exc)
        else:
            log.info("keys file reloaded", extra={"fields": {"keys": len(self._file)}})
        self._stamp = stamp


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def read_keys_file(path: Path) -> tuple[KeyEntry, ...]:
    """The entries of a keys file; ValueError (naming the file and entry, never a key)."""
    # The parser's message may quote the offending line, which may hold a key: left out.
    data = read_table(path, "keys file", quote_errors=False)
    raw = data.get("keys")
    if not isinstance(raw, list):
        raise ValueError(f"keys file {path} must hold a list named 'keys'")
    entries = [_entry(path, i, item) for i, item in enumerate(raw)]
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ValueError(f"keys file {path}: key names must be unique")
    return tuple(entries)


def _entry(path: Path, index: int, item: Any) -> KeyEntry:
    where = f"keys file {path}, keys[{index}]"
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be a table/object")
    unknown = set(item) - {"name", "key", "sha256", "expires", "max_concurrent", "role"}
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}")
    name = item.get("name", f"key-{index + 1}")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: name must be a non-empty string")
    key, hashed = item.get("key"), item.get("sha256")
    if (key is None) == (hashed is None):
        raise ValueError(f"{where}: give exactly one of 'key' and 'sha256'")
    if key is not None:
        if not isinstance(key, str) or not key.strip() or key != key.strip() or "," in key:
            raise ValueError(f"{where}: key must be a non-empty string without spaces or commas")
        value = digest(key)
    else:
        try:
            value = bytes.fromhex(str(hashed))
        except ValueError:
            value = b""
        if len(value) != 32:
            raise ValueError(f"{where}: sha256 must be 64 hex digits")
    limit = item.get("max_concurrent")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"{where}: max_concurrent must be a positive integer")
    role = item.get("role", ADMIN)
    if role not in ROLES:
        raise ValueError(f"{where}: role must be one of {', '.join(ROLES)}")
    return KeyEntry(name, value, _expiry(where, item.get("expires")), limit, role)


def _expiry(where: str, raw: Any) -> datetime | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        try:
            raw = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{where}: expires must be an RFC 3339 timestamp") from None
    if isinstance(raw, date) and not isinstance(raw, datetime):
        raw = datetime(raw.year, raw.month, raw.day)
    if not isinstance(raw, datetime):
        raise ValueError(f"{where}: expires must be an RFC 3339 timestamp")
    # A timestamp without an offset is UTC: servers run in any zone, keys files travel.
    return raw if raw.tzinfo is not None else raw.replace(tzinfo=UTC)


def from_environment(keys_file: Path | None) -> KeyStore | None:
    """:meth:`KeyStore.from_settings` with ``os.environ``."""
    return KeyStore.from_settings(keys_file, os.environ)


def keys_in_env(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``EVALD_API_KEYS`` holds any key (for the start-up log line: never the keys)."""
    raw = (os.environ if env is None else env).get(ENV_KEYS, "")
    return any(k.strip() for k in raw.split(","))
