"""Browser-test harness: Playwright (from PyPI) driving Debian's Chromium at /usr/bin/chromium.

Playwright's own browser download is not available here, so ``.ci/run`` starts ``apt-get install
-y chromium`` in the background when it is missing and writes its exit status to the file named by
``TM_CHROMIUM_INSTALL_STATUS`` when done. The browser tests wait for that (``chromium_executable``)
instead of failing while the install still runs; with no such install under way and no Chromium
they are skipped. One browser per test module (``launch``); each signed-in user gets a context of
its own (its own cookie jar), reused by that module's tests.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("TM_CHROMIUM", "/usr/bin/chromium"))
INSTALL_STATUS_ENV = "TM_CHROMIUM_INSTALL_STATUS"  # a file .ci/run writes "0" (or apt's exit code) into
INSTALL_WAIT = 6 * 60.0  # seconds a test waits for a background install to finish
ACTION_TIMEOUT_MS = 10_000  # a page that takes longer than this to show something has failed
VIEWPORT = {"width": 1100, "height": 760}
# Every run takes the screenshots; only TM_UI_SCREENSHOTS=docs/ui writes them over the README's
# pictures (they show today's date, so an ordinary run would leave the tree modified).
SCREENSHOTS = Path(os.environ.get("TM_UI_SCREENSHOTS") or Path(tempfile.gettempdir()) / "taste-memory-ui")


def chromium_executable(wait: float = INSTALL_WAIT) -> Path:
    """The Chromium to launch; waits for .ci/run's background install when one is under way."""
    status_file = os.environ.get(INSTALL_STATUS_ENV)
    deadline = time.monotonic() + wait
    while not CHROMIUM.exists():
        if not status_file:
            pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium package)")
        status = Path(status_file)
        if status.exists():
            text = status.read_text().strip()
            if CHROMIUM.exists():
                break
            pytest.fail(
                f"the background `apt-get install chromium` ended with status {text!r} and left no "
                f"{CHROMIUM}; see {status}.log",
                pytrace=False,
            )
        if time.monotonic() > deadline:
            pytest.fail(f"Chromium was still being installed after {wait:.0f}s", pytrace=False)
        time.sleep(0.5)  # polling another process (apt), not the page
    return CHROMIUM


@asynccontextmanager
async def launch() -> AsyncIterator[object]:
    """One headless Chromium for a module's tests."""
    from playwright.async_api import async_playwright

    executable = chromium_executable()
    args = ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium's sandbox refuses to run as root
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(executable), args=args, headless=True)
        try:
            yield browser
        finally:
            await browser.close()


class PageErrors:
    """Console errors and uncaught exceptions of a page: a CSP violation or a script error shows here."""

    def __init__(self, page) -> None:
        self.messages: list[str] = []
        page.on("pageerror", lambda exc: self.messages.append(f"pageerror: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and self.messages.append(f"console: {msg.text}"))
        page.on("response", lambda r: r.status >= 400 and self.messages.append(f"http {r.status} {r.url}"))

    def unexpected(self, *allowed: str) -> list[str]:
        """Messages not containing any of ``allowed`` (e.g. the 401 of a refused sign-in)."""
        return [m for m in self.messages if not any(a in m for a in allowed)]


async def new_page(browser, base_url: str, **options: str):
    """A fresh context (cookie jar) and page on the page's URL; returns (page, errors). ``options``
    go to the context (``timezone_id="Asia/Kolkata"``: the person's local time is not UTC)."""
    context = await browser.new_context(base_url=base_url, viewport=VIEWPORT, **options)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = await context.new_page()
    errors = PageErrors(page)
    await page.goto("/ui/")
    return page, errors


async def settled(page) -> None:
    """Wait until the current view has drawn itself (the page marks <main> busy while loading)."""
    from playwright.async_api import expect

    await expect(page.locator("main#main")).to_have_attribute("aria-busy", "false")


async def sign_in(page, token: str) -> None:
    await page.get_by_test_id("token-input").fill(token)
    await page.get_by_test_id("sign-in").click()
    from playwright.async_api import expect

    await expect(page.get_by_test_id("nav-overview")).to_be_visible()
    await settled(page)


async def screenshot(page, name: str) -> Path:
    """A small PNG of the viewport (into docs/ui/ with TM_UI_SCREENSHOTS=docs/ui: the README's pictures)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=False)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2_000, path  # a picture, not blank
    return path
