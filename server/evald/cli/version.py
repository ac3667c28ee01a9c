"""The installed evald version, for ``evald --version`` and the report."""

from __future__ import annotations

from importlib import metadata


def evald_version() -> str:
    """The version of the installed ``evald`` distribution ("unknown" when run from a source
    tree that is not installed)."""
    try:
        return metadata.version("evald")
    except metadata.PackageNotFoundError:
        return "unknown"
