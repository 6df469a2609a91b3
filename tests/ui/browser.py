"""Chromium (the Debian package) driven by Playwright for Python, against the live test server.

One browser and one logged-in page per test module keep the suite fast. Every console error or uncaught
exception fails the test that caused it; each test leaves a screenshot in tests/ui/screenshots/ (git-ignored).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from tests.conftest import ADMIN_PASSWORD, LiveServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
# With no GPU, the page's layers are composited in software in the browser process rather than handed to a GPU
# process that emulates one; and one renderer per page rather than one per site (every page is the test server's).
# Together they saved about 7 % of the browser tests' CPU (150 -> 139 CPU-seconds on 2 workers).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-gpu-compositing", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-site-isolation-trials", "--disable-features=site-per-process,IsolateOrigins"]
# Cypher and path finding answer "nothing found" with 404, as the reference does: the page says so.
NOT_FOUND_MEANS_EMPTY = ("/api/v2/graphs/cypher", "/api/v2/graphs/shortest-path")


@dataclass
class UI:
    page: Page
    base_url: str
    errors: list[str] = field(default_factory=list)

    def goto(self, path: str) -> None:
        self.page.goto(self.base_url + path)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.wait_for_timeout(150)  # node pictograms reach the WebGL texture a frame or two after drawing
        self.page.screenshot(path=str(path))
        return path

    def take_errors(self) -> list[str]:
        errors, self.errors[:] = list(self.errors), []
        return errors


def _record(ui: UI, message: ConsoleMessage) -> None:
    if message.type != "error":
        return
    url = message.location.get("url", "")
    if "status of 404" in message.text and any(path in url for path in NOT_FOUND_MEANS_EMPTY):
        return
    ui.errors.append(f"{message.text} ({url})")


def launch_browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail("the browser tests need Chromium: install the Debian package 'chromium' "
                    "(make test does it when run as root)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_ui(browser: Browser, live_server: LiveServer, *, width: int = 1280, height: int = 800,
            scale: float = 1) -> Iterator[UI]:
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale,
                                  accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)  # the suite runs beside other workers on 2 cores
    ui = UI(page, live_server.base_url)
    page.on("console", lambda message: _record(ui, message))
    page.on("pageerror", lambda error: ui.errors.append(f"uncaught: {error}"))
    try:
        yield ui
    finally:
        context.close()


def log_in(ui: UI, username: str = "admin", password: str = ADMIN_PASSWORD) -> None:
    ui.goto("/ui/login")
    ui.page.fill("#login-username", username)
    ui.page.fill("#login-password", password)
    ui.page.click("#login-submit")
    ui.page.wait_for_selector("#logout")


def graph_stats(ui: UI, pattern: str) -> None:
    """Wait until the toolbar's node and edge count matches `pattern` (the CSP forbids evaluated predicates)."""
    expect(ui.page.locator("#graph-stats")).to_have_text(re.compile(pattern), timeout=20_000)


def open_explore(ui: UI, tab: str = "search") -> None:
    ui.goto("/ui/explore")
    ui.page.click(f"#tab-{tab}")
    if tab == "cypher":
        # The saved queries' list takes its height when its answer comes, moving the pre-built searches below it: a
        # click aimed before that landed elsewhere (a pre-built group stayed closed).
        ui.page.wait_for_selector("#saved-queries[aria-busy='false']", state="attached")


def choose(ui: UI, input_id: str, text: str, name: str) -> None:
    """Type into a search box and pick the hit named `name`."""
    ui.page.fill(f"#{input_id}", text)
    ui.page.locator(".search-hit:visible", has_text=name).filter(
        has=ui.page.locator(".hit-name", has_text=name)).first.click()


def drawn_graph(ui: UI) -> dict[str, Any]:
    """The graph on screen, as the Export JSON button saves it."""
    with ui.page.expect_download() as download:
        ui.page.click("#export-json")
    return json.loads(download.value.path().read_text())


def click_graph_centre(ui: UI, button: str = "left") -> None:
    """A one-node graph, or a two-node one with its edge, is fitted around the centre of the canvas."""
    box = ui.page.locator("#graph").bounding_box()
    assert box
    ui.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, button=button)  # type: ignore[arg-type]
