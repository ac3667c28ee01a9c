"""Browser tests of the web UI: one headless Chromium per session (Debian's /usr/bin/chromium,
driven by Playwright over the DevTools protocol), one evald server per module with the HTTP
gateway on port 0 and an API key, pages opened at the gateway's address.

Without /usr/bin/chromium the tests skip, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
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


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One headless Chromium for the whole session, as a plain process: its DevTools URL."""
    chromium_or_skip()
    profile = tmp_path_factory.mktemp("chromium")
    process = subprocess.Popen(
        [str(CHROMIUM), *CHROMIUM_ARGS, "--remote-debugging-port=0", f"--user-data-dir={profile}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        ready = profile / "DevToolsActivePort"  # Chromium writes its port there once listening
        deadline = time.monotonic() + 30
        while not (ready.exists() and ready.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{CHROMIUM} did not start (exit code {process.poll()})")
            time.sleep(0.05)
        port = ready.read_text().split()[0]
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    """The session's Chromium, driven by Playwright for one module.

    Playwright's sync API keeps an event loop running on this thread while it is started:
    started per module (not per session), so the tests that run after the browser tests in
    the same worker can still ``asyncio.run``.
    """
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        connected = playwright.chromium.connect_over_cdp(chromium)
        yield connected
        connected.close()
    finally:
        playwright.stop()


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
