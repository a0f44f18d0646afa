"""Debian's chromium, driven headless by Playwright (pinned with the suite's clients; `make test`
installs the browser with apt): the inspector page as a person sees it. A browser that cannot start
fails the test: nothing here skips."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
WAIT_MS = 30_000
"""How long a check waits for the page (a liveness margin on a shared, loaded machine, never a speed check)."""
expect.set_options(timeout=WAIT_MS)
SCREENSHOTS = os.environ.get("INSPECTOR_SCREENSHOTS")
"""A folder to write the documentation's screenshots into (`make screenshots`); unset: a temporary one."""


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make test` installs Debian's chromium package"
    launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
    yield launched
    launched.close()


class Visit:
    """A page of the browser, with every URL it requested (to hold it to its own origin)."""

    def __init__(self, page: Page, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.requested: list[str] = []
        page.on("request", lambda request: self.requested.append(request.url))

    def open(self) -> Page:
        self.page.goto(self.origin + "/_emulator/ui/")
        self.page.wait_for_selector("#live:text('live')")
        return self.page

    def foreign(self) -> list[str]:
        """Requests to any other origin (blob: and data: URLs the page made itself aside)."""
        own = urlsplit(self.origin).netloc
        return [
            url
            for url in self.requested
            if urlsplit(url).scheme not in ("blob", "data") and urlsplit(url).netloc != own
        ]


@pytest.fixture
def visit(browser: Browser) -> Iterator[type[Visit]]:
    contexts = []

    def make(origin: str) -> Visit:
        context = browser.new_context(viewport={"width": 1500, "height": 900}, accept_downloads=True)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return Visit(context.new_page(), origin)

    yield make  # type: ignore[misc]
    for context in contexts:
        context.close()


def screenshot(page: Page, name: str, tmp_path: Path) -> Path:
    """A PNG of the page, into the documentation's folder under `make screenshots`."""
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"inspector-{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000  # a drawn page, not a blank one
    return path
