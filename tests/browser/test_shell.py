"""The UI's shell: serving (redirect, deep links, headers), the key prompt, sign out."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.support import KEY, UiServer, record, screenshot
from tests.http_support import request


def test_root_redirects_to_the_ui(page: Any, ui_server: UiServer) -> None:
    status, _, headers = request(ui_server.url, "GET", "/")
    assert (status, headers["location"]) == (302, "/ui/")
    page.goto("/")
    page.wait_for_url(re.compile(r"/ui/runs$"))


def test_401_asks_for_the_key_then_signs_out(page: Any, ui_server: UiServer) -> None:
    ui_server.import_run("keyed run", [record(0, "p", "r", "r", {"exact_match": 1.0})])
    page.goto("/ui/runs")
    prompt = page.get_by_test_id("key-prompt")
    prompt.wait_for()
    screenshot(page, "key-prompt")
    page.fill("#api-key", "not-the-key")
    page.keyboard.press("Enter")
    prompt.wait_for()  # a wrong key: asked again
    page.fill("#api-key", KEY)
    page.keyboard.press("Enter")
    page.get_by_test_id("runs-table").get_by_text("keyed run").wait_for()
    assert page.evaluate("sessionStorage.getItem('evald.apiKey')") == KEY
    page.get_by_test_id("sign-out").click()
    assert page.evaluate("sessionStorage.getItem('evald.apiKey')") is None
    page.get_by_test_id("sign-in").wait_for()


SAFE_URLS = [
    ("/ui/runs", "/ui/runs"),
    ("#rows", "#rows"),
    ("https://example.com/a", "https://example.com/a"),
    ("javascript:alert(1)", None),
    ("JaVaScRiPt:alert(1)", None),
    ("data:text/html,<script>alert(1)</script>", None),
    # Leaving the site: allowed as any http(s) link is, but as the absolute URL it is.
    ("//evil.example/x", "http://evil.example/x"),
    ("/\\evil.example/x", "http://evil.example/x"),
    ("vbscript:x", None),
]


def test_dom_helper_refuses_unsafe_input(signed_in: Any) -> None:
    page = signed_in
    page.goto("/ui/import")
    page.get_by_test_id("import-form").wait_for()
    found = page.evaluate(
        """async (urls) => {
            const dom = await import("/ui/assets/js/dom.js");
            const refused = (attrs) => {
              try { dom.h("a", attrs); return false; } catch (e) { return true; }
            };
            const link = dom.h("a", { href: "javascript:alert(1)" }, "<b>x</b>");
            return {
              urls: urls.map((u) => dom.safeUrl(u)),
              onclick: refused({ onclick: "alert(1)" }),
              style: refused({ style: "color: red" }),
              src: refused({ src: "x" }),
              innerHTML: refused({ props: { innerHTML: "<img src=x onerror=alert(1)>" } }),
              listener: refused({ on: { click: "alert(1)" } }),
              href: link.getAttribute("href"),
              text: link.textContent,
              children: link.children.length,
            };
        }""",
        [url for url, _ in SAFE_URLS],
    )
    assert found["urls"] == [expected for _, expected in SAFE_URLS]
    assert all(found[k] for k in ("onclick", "style", "src", "innerHTML", "listener"))
    assert (found["href"], found["text"], found["children"]) == (None, "<b>x</b>", 0)
