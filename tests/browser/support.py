"""Helpers of the browser tests: the browser's path and flags, the test key, screenshots, and
runs imported through the HTTP API."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.http_support import request

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
KEY = "evald-ui-test-key-4f1c2a"
ROOT = Path(__file__).parents[2]
DOCS_SCREENSHOTS = ROOT / "docs/img/ui"
UPDATE_DOCS = "EVALD_UPDATE_SCREENSHOTS"
"""Set (``make screenshots``): the screenshots also replace the committed ones in docs/."""


@dataclass
class UiServer:
    url: str
    """The gateway's base URL (``http://127.0.0.1:PORT``)."""
    root: Path

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """Call the HTTP API with the key."""
        status, data, _ = request(self.url, method, path, body, {"x-goog-api-key": KEY})
        return status, data

    def import_run(self, name: str, records: list[dict[str, Any]]) -> str:
        """Import result records as a run; its id."""
        results = "".join(json.dumps(r) + "\n" for r in records)
        status, data = self.api("POST", "/v1/evald/runs", {"name": name, "results": results})
        assert status == 201, data
        return str(data["id"])


def record(
    index: int,
    prompt: str,
    response: str,
    reference: str,
    scores: dict[str, float | None],
    *,
    category: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """One ``results.jsonl`` record; a metric whose score is None erred with ``error``."""
    row: dict[str, Any] = {"prompt": prompt, "response": response, "reference": reference}
    if category is not None:
        row["category"] = category
    results = []
    for metric, score in scores.items():
        failure = None if score is not None else {"code": "INVALID_ARGUMENT", "message": error}
        results.append(
            {"metric": metric, "score": score, "explanation": f"{metric} says so", "error": failure}
        )
    return {"row": index, "input": row, "results": results}


def artifacts_dir() -> Path:
    """Where screenshots go: ``$EVALD_ARTIFACTS_DIR`` or ``build/artifacts/screenshots``."""
    root = os.environ.get("EVALD_ARTIFACTS_DIR")
    return Path(root) if root else ROOT / "build/artifacts/screenshots"


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page PNG under the artifacts directory (and into docs/img/ui when
    ``EVALD_UPDATE_SCREENSHOTS`` is set); its path."""
    folder = artifacts_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get(UPDATE_DOCS):
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)
    return path
