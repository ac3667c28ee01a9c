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
