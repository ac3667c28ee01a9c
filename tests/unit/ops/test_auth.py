"""API keys: keys file parsing, expiry, metadata extraction, and that refusals never echo a key."""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from evald.ops.auth import KeyStore, Unauthenticated, presented_key, read_keys_file
from google.rpc import error_details_pb2

SECRET = "k-3f9a-SECRET-c0ffee"
OTHER = "k-other-SECRET-beef"
FUTURE = "2999-01-01T00:00:00Z"
PAST = "2001-01-01T00:00:00Z"


def write_keys(tmp_path: Path, entries: list[dict[str, Any]], name: str = "keys.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"keys": entries}), encoding="utf-8")
    return path


PRESENTED = [
    # (metadata, key it carries)
    ([("authorization", f"Bearer {SECRET}")], SECRET),
    ([("authorization", f"bearer   {SECRET}  ")], SECRET),  # scheme is case-insensitive
    ([("x-goog-api-key", SECRET)], SECRET),
    ([("X-Goog-Api-Key", SECRET)], SECRET),  # HTTP header names arrive in any case
    ([("x-goog-api-key", OTHER), ("authorization", f"Bearer {SECRET}")], SECRET),
    ([("user-agent", "x")], None),
    ([], None),
]


@pytest.mark.parametrize(("metadata", "expected"), PRESENTED)
def test_presented_key(metadata: list[tuple[str, str]], expected: str | None) -> None:
    assert presented_key(metadata) == expected


@pytest.mark.parametrize("value", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", SECRET])
def test_authorization_must_be_bearer(value: str) -> None:
    with pytest.raises(Unauthenticated) as caught:
        presented_key([("authorization", value)])
    assert "Bearer <key>" in caught.value.message


def reason(error: Unauthenticated) -> str:
    info = error_details_pb2.ErrorInfo()
    assert error.to_status().details[0].Unpack(info)
    return str(info.reason)


AUTHENTICATE = [
    # (metadata, principal name or refusal reason)
    ([("authorization", f"Bearer {SECRET}")], "ci"),
    ([("x-goog-api-key", SECRET)], "ci"),
    ([("x-goog-api-key", OTHER)], "API_KEY_EXPIRED"),
    ([("x-goog-api-key", SECRET + "x")], "API_KEY_INVALID"),
    ([("x-goog-api-key", SECRET[:-1])], "API_KEY_INVALID"),
    ([("x-goog-api-key", "")], "API_KEY_INVALID"),
    ([], "CREDENTIALS_MISSING"),
]


@pytest.mark.parametrize(("metadata", "expected"), AUTHENTICATE)
def test_authenticate(tmp_path: Path, metadata: list[tuple[str, str]], expected: str) -> None:
    path = write_keys(
        tmp_path,
        [
            {"name": "ci", "key": SECRET, "expires": FUTURE},
            {"name": "old", "key": OTHER, "expires": PAST},
        ],
    )
    store = KeyStore(path=path)
    if expected.isupper():
        with pytest.raises(Unauthenticated) as caught:
            store.authenticate(metadata)
        assert reason(caught.value) == expected
        status = caught.value.to_status()
        assert status.code == 16  # UNAUTHENTICATED
        assert SECRET not in str(status)
        assert OTHER not in str(status)
    else:
        assert store.authenticate(metadata).name == expected


def test_sha256_entries_and_expiry_boundary(tmp_path: Path) -> None:
    hashed = hashlib.sha256(SECRET.encode()).hexdigest()  # the operator stores only this
    path = write_keys(tmp_path, [{"name": "h", "sha256": hashed, "expires": "2030-06-01T12:00:00"}])
    expiry = datetime(2030, 6, 1, 12, tzinfo=UTC).timestamp()  # no offset means UTC
    store = KeyStore(path=path, clock=lambda: expiry - 1)
    assert store.authenticate([("x-goog-api-key", SECRET)]).name == "h"
    store = KeyStore(path=path, clock=lambda: expiry)
    with pytest.raises(Unauthenticated, match="expired"):
        store.authenticate([("x-goog-api-key", SECRET)])


def test_toml_keys_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    path.write_text(
        f'[[keys]]\nname = "a"\nkey = "{SECRET}"\nexpires = 2999-01-01T00:00:00Z\n'
        "max_concurrent = 3\n",
        encoding="utf-8",
    )
    (entry,) = read_keys_file(path)
    assert (entry.name, entry.max_concurrent) == ("a", 3)
    assert entry.expires == datetime(2999, 1, 1, tzinfo=UTC)
    assert SECRET not in repr(entry)


def test_environment_keys() -> None:
    store = KeyStore.from_settings(None, {"EVALD_API_KEYS": f" {SECRET}, {OTHER} ,"})
    assert store is not None
    assert store.authenticate([("x-goog-api-key", OTHER)]).name == "env-2"
    assert KeyStore.from_settings(None, {"EVALD_API_KEYS": " , "}) is None
    assert KeyStore.from_settings(None, {}) is None


BAD_FILES = [
    # (file content, message fragment)
    ({"keys": [{"name": "a"}]}, "exactly one of 'key' and 'sha256'"),
    ({"keys": [{"key": SECRET, "sha256": "00" * 32}]}, "exactly one of"),
    ({"keys": [{"sha256": "abc"}]}, "64 hex digits"),
    ({"keys": [{"key": SECRET, "expires": "soon"}]}, "RFC 3339"),
    ({"keys": [{"key": SECRET, "max_concurrent": 0}]}, "positive integer"),
    ({"keys": [{"key": SECRET, "colour": "red"}]}, "unknown field"),
    ({"keys": [{"name": "a", "key": SECRET}, {"name": "a", "key": OTHER}]}, "unique"),
    ({"keys": [{"key": " padded "}]}, "without spaces"),
    ({"keys": "x"}, "list named 'keys'"),
    ([], "table/object at the top level"),
]


@pytest.mark.parametrize(("content", "message"), BAD_FILES)
def test_bad_keys_file(tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as caught:
        read_keys_file(path)
    assert SECRET not in str(caught.value)
    assert OTHER not in str(caught.value)


def test_unparseable_file_does_not_quote_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    path.write_text(f'[[keys]]\nkey = "{SECRET}\n', encoding="utf-8")  # unterminated string
    with pytest.raises(ValueError, match="not valid") as caught:
        read_keys_file(path)
    assert SECRET not in str(caught.value)


def test_rotation_reloads_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_keys(tmp_path, [{"name": "a", "key": SECRET}])
    store = KeyStore(path=path)
    monkeypatch.setattr("evald.ops.auth.RELOAD_SECONDS", 0.0)
    write_keys(tmp_path, [{"name": "b", "key": OTHER}])
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))  # a later mtime, whatever the fs
    assert store.authenticate([("x-goog-api-key", OTHER)]).name == "b"
    with pytest.raises(Unauthenticated):
        store.authenticate([("x-goog-api-key", SECRET)])
    # A broken rewrite keeps the last good keys rather than locking everyone out.
    path.write_text("{", encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 2 * 10**9))
    assert store.authenticate([("x-goog-api-key", OTHER)]).name == "b"


def test_every_entry_is_compared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No early exit: the number of comparisons does not depend on which key matched."""
    path = write_keys(tmp_path, [{"name": f"k{i}", "key": f"key-{i}"} for i in range(5)])
    store = KeyStore(path=path)
    calls: list[int] = []
    import hmac

    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr("evald.ops.auth.hmac.compare_digest", counting)
    for i in (0, 4):
        calls.clear()
        store.authenticate([("x-goog-api-key", f"key-{i}")])
        assert len(calls) == 5
