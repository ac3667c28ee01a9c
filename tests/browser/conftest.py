"""Browser tests of the web UI: one headless Chromium per module (Playwright driving
Debian's /usr/bin/chromium), one evald server per module with the HTTP gateway on port 0 and
an API key, pages opened at the gateway's address.

Without /usr/bin/chromium the tests skip, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, KEY, UiServer
from tests.http_support import http_url
from tests.support import serving


def chromium_or_skip() -> None:
    """Skip (fail in CI) when the browser is missing."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is not installed (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(f"CI needs headless Chromium: {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per module: Playwright's sync API keeps an event loop running in
    the thread while it is started, so a session-wide one would make every later test of the
    same worker that calls ``asyncio.run`` fail."""
    chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An evald server (HTTP gateway on port 0) that wants the API key :data:`KEY`."""
    root = tmp_path_factory.mktemp("ui")
    keys = root / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "ui"\nkey = "{KEY}"\n', encoding="utf-8")
    with serving(http_port=0, auth_keys_file=keys, data_dir=root / "data") as running:
        yield UiServer(http_url(running), root)


@pytest.fixture
def page(browser: Any, ui_server: UiServer) -> Iterator[Any]:
    """A fresh tab (its own session storage: no key yet) at the server; fails the test on a
    JavaScript error or any dialog (alert/confirm: an injected script would open one)."""
    context = browser.new_context(base_url=ui_server.url, viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))

    def on_dialog(dialog: Any) -> None:
        problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def on_console(message: Any) -> None:
        # Failed calls (401 before the key, 400 from a bad filter) are logged by the browser
        # itself; anything else on the error console is a bug.
        if message.type == "error" and not re.search(r"\b(400|401|403|404)\b", message.text):
            problems.append(f"console: {message.text}")

    tab.on("dialog", on_dialog)
    tab.on("console", on_console)
    tab.set_default_timeout(5000)
    yield tab
    context.close()
    assert not problems, problems


@pytest.fixture
def signed_in(page: Any) -> Any:
    """A tab whose session already holds the key (no prompt on the first call)."""
    page.add_init_script(f"sessionStorage.setItem('evald.apiKey', {KEY!r})")
    return page
