"""The server configuration file: ``evald serve --config evald.toml`` (or ``EVALD_CONFIG``).

The file holds the same settings as the flags, by their ``Settings`` field names (the flag
without ``--``, dashes as underscores)::

    host = "0.0.0.0"
    port = 50051
    http_port = 8080
    metrics_port = 9090
    auth_keys_file = "keys.toml"      # relative paths are relative to this file
    max_instances = 10000

    [judges.gemini]                   # judges: as in a judge config file (evald.judges.config),
    backend = "gemini"                # every sub-table but [judges.retry] and [judges.cache]
    model = "gemini-2.5-flash"        # being one judge
    api_key_env = "GEMINI_API_KEY"

TOML (Python 3.11+) or JSON (a ``.json`` name). Precedence, lowest first: defaults, this file,
``EVALD_*`` variables, flags. Secrets never go in this file: API keys live in the keys file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evald.tables import read_table


def read(path: Path, fields: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The settings in ``path`` as ``{field: value}``; ``fields`` are the (name, type) pairs of
    ``Settings``. Raises ValueError naming the file and what is wrong with it."""
    types = dict(fields)
    data = _load(path)
    values: dict[str, Any] = {}
    for key, raw in data.items():
        name = key.replace("-", "_")
        kind = types.get(name)
        if kind is None or name == "config":
            raise ValueError(f"config file {path}: unknown setting {key!r}")
        values[name] = _convert(path, name, kind, raw)
    return values


def _load(path: Path) -> dict[str, Any]:
    return read_table(path, "config file")


def _convert(path: Path, name: str, kind: str, raw: Any) -> Any:
    optional = "None" in kind
    if raw is None and optional:
        return None
    wrong = ValueError(f"config file {path}: {name} = {raw!r} is not a valid {kind}")
    if kind.startswith("bool"):
        if not isinstance(raw, bool):
            raise wrong
        return raw
    if isinstance(raw, bool):  # bool is an int subclass: never a number setting
        raise wrong
    if kind.startswith("int"):
        if not isinstance(raw, int):
            raise wrong
        return raw
    if kind.startswith("float"):
        if not isinstance(raw, (int, float)):
            raise wrong
        return float(raw)
    if kind.startswith("tuple"):  # a list of strings (cors_origins), or one string
        if isinstance(raw, str) or (isinstance(raw, list) and all(isinstance(x, str) for x in raw)):
            return raw
        raise wrong
    if kind.startswith("Mapping"):  # a table ([judges]): checked by what reads it
        if not isinstance(raw, dict):
            raise ValueError(f"config file {path}: {name} must be a table")
        return raw
    if not isinstance(raw, str):
        raise wrong
    if kind.startswith("Path"):
        # Relative to the file, so a config and the files it names can move together.
        return (path.parent / raw).resolve() if raw else None
    return raw
