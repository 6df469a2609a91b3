from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.conftest import LiveServer
from tests.ui.browser import UI, launch_browser, log_in, open_ui


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch_browser()


@pytest.fixture(scope="module")
def ui_session(browser: Browser, live_server: LiveServer) -> Iterator[UI]:
    """One logged-in administrator page for the whole module."""
    for ui in open_ui(browser, live_server):
        log_in(ui)
        yield ui


@pytest.fixture
def ui(ui_session: UI) -> Iterator[UI]:
    """The module's page; the test fails on any console error it caused."""
    ui_session.take_errors()
    yield ui_session
    assert ui_session.take_errors() == []
