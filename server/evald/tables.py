"""Reading the TOML or JSON files evald is configured with (server config, judges, API keys)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any


def read_table(path: Path, what: str, *, quote_errors: bool = True) -> dict[str, Any]:
    """The top-level table of a ``.json`` file, or of a TOML file (any other suffix).

    Raises ValueError naming ``what`` (e.g. "judge config") and the file. With
    ``quote_errors=False`` the parser's message is left out: it may quote a line of a secrets file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError and json.JSONDecodeError included
        detail = f": {exc}" if quote_errors else " TOML/JSON"
        raise ValueError(f"{what} {path} is not valid{detail}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} {path} must hold a table/object at the top level")
    return data
