"""The wheel carries every file of the web UI: pyproject's package-data patterns for
``evald.ui`` match each file under ``server/evald/ui/assets`` (a new folder or file type
needs a new pattern, or the installed UI would miss it)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from evald.ui import static

ROOT = Path(__file__).resolve().parents[2]


def test_package_data_covers_every_asset() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["evald.ui"]
    package = ROOT / "server/evald/ui"
    files = [p for p in (package / "assets").rglob("*") if p.is_file()]
    assert files
    for path in files:
        name = path.relative_to(package).as_posix()
        # setuptools globs like fnmatch within one folder: "*" never crosses a "/".
        matched = [
            p for p in patterns if fnmatch.fnmatch(name, p) and name.count("/") == p.count("/")
        ]
        assert matched, f"{name} is not in the wheel: add a package-data pattern for it"


def test_every_served_file_type_is_known() -> None:
    for path in static.ASSETS.rglob("*"):
        if path.is_file():
            assert path.suffix in static.CONTENT_TYPES, path
