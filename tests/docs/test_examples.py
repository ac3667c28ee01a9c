"""The documentation's examples run, and its links lead somewhere.

A fenced ``python`` or ``sh`` block right after the line ``<!-- test: run -->`` is run against a
real server (gRPC and HTTP on port 0): the addresses the examples name (127.0.0.1:50051 for gRPC,
127.0.0.1:8080 for HTTP) are replaced by the server's. Python runs in a subprocess, since the
official client cannot share a process with evald's generated code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify  # type: ignore[import-untyped]

from tests.http_support import http_url
from tests.support import ServerThread, serving

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MARKER = "<!-- test: run -->"
BLOCK = re.compile(r"^" + re.escape(MARKER) + r"\n```(\w+)\n(.*?)^```$", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.M)


def examples() -> Iterator[tuple[str, str, str]]:
    for page in PAGES:
        for number, match in enumerate(BLOCK.finditer(page.read_text(encoding="utf-8")), 1):
            yield f"{page.relative_to(ROOT)}#{number}", match[1], match[2]


EXAMPLES = list(examples())


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with serving(http_port=0) as running:
        yield running


def test_the_readme_has_runnable_examples() -> None:
    assert {language for name, language, _ in EXAMPLES if name.startswith("README")} == {
        "python",
        "sh",
    }


@pytest.mark.parametrize(
    ("language", "code"), [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES]
)
def test_example_runs(server: ServerThread, language: str, code: str) -> None:
    http = http_url(server).removeprefix("http://")
    code = code.replace("127.0.0.1:50051", server.address).replace("127.0.0.1:8080", http)
    if language == "python":
        command = [sys.executable, "-c", code]
    elif language == "sh":
        if shutil.which("curl") is None:
            pytest.skip("curl is not installed")
        command = ["sh", "-ec", code]
    else:
        raise AssertionError(f"no runner for {language} examples")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the example printed nothing"
    assert "error" not in done.stdout.lower()


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```$", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slugify(title.replace("`", ""), "-") for title in HEADING.findall(text)}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_lead_to_pages_and_headings(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target):
            continue  # an absolute URL
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        missing_anchor = anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        if not linked.is_file() or missing_anchor:
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)} links nowhere: {broken}"
