"""The UI's files hold no HTML-injection sink: every text goes through h() (dom.js), which only
makes Text nodes and allow-listed attributes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from evald.ui import static

ASSETS = static.ASSETS
SCRIPTS = sorted(ASSETS.rglob("*.js"))
SINKS = [
    ("innerHTML", re.compile(r"\binnerHTML\b")),
    ("outerHTML", re.compile(r"\bouterHTML\b")),
    ("insertAdjacentHTML", re.compile(r"insertAdjacentHTML")),
    ("document.write", re.compile(r"document\.write")),
    ("eval", re.compile(r"(?<![\w.])eval\s*\(")),
    ("new Function", re.compile(r"new\s+Function\s*\(")),
    ("string timer", re.compile(r"set(Timeout|Interval)\s*\(\s*['\"`]")),
    ("javascript: URL", re.compile(r"javascript:", re.IGNORECASE)),
    ("inline handler", re.compile(r"""setAttribute\(\s*['"]on""")),
    ("createContextualFragment", re.compile(r"createContextualFragment")),
    ("DOMParser", re.compile(r"DOMParser")),
    ("srcdoc", re.compile(r"srcdoc")),
]
ALLOWED = {
    # dom.js names the sinks to refuse them.
    ("dom.js", "innerHTML"),
    ("dom.js", "outerHTML"),
}


def test_there_are_scripts() -> None:
    assert {p.name for p in SCRIPTS} >= {"app.js", "dom.js", "api.js", "router.js"}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ASSETS)))
def test_no_html_sinks(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    found = [
        name
        for name, pattern in SINKS
        if pattern.search(source) and (path.name, name) not in ALLOWED
    ]
    assert not found, f"{path.name} uses {found}: build the DOM with h() instead"


def test_dom_refuses_the_sinks_it_names() -> None:
    source = (ASSETS / "js/dom.js").read_text(encoding="utf-8")
    for line in source.splitlines():
        if "innerHTML" in line or "outerHTML" in line:
            assert "throw" in line or line.strip().startswith("//"), line


def test_html_has_no_inline_script_or_handler() -> None:
    for page in ASSETS.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), "inline <script>: CSP forbids it"
        assert not re.search(r"\son\w+\s*=", html), "inline event handler"
        assert not re.search(r"\sstyle\s*=", html), "inline style: CSP forbids it"
        assert "//" not in re.sub(r"https?://www\.w3\.org", "", html.split("<body>")[0]).replace(
            "<!doctype html>", ""
        ), "no external resource"


def test_no_external_resources() -> None:
    for path in ASSETS.rglob("*"):
        if path.suffix in (".js", ".css", ".html"):
            text = path.read_text(encoding="utf-8")
            urls = re.findall(r"https?://[^\s\"'`)]+", text)
            assert all(u.startswith("http://www.w3.org/") for u in urls), (path.name, urls)
