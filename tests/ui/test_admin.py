"""Administration and the other pages in Chromium: upload with job history, API tokens, users, the forced
password change, configuration, data quality, logout."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Locator

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import PASSWORD, create_user, unique
from tests.labs import ADCS, clear
from tests.ui.browser import UI, log_in, open_ui


@pytest.fixture(scope="module", autouse=True)
def empty_at_the_end(database: Database) -> Iterator[None]:
    yield
    clear(database)


def delete_row(ui: UI, row: Locator) -> None:
    """The row's Delete button, confirmed in the dialog; the row goes away."""
    row.locator("button", has_text="Delete").click()
    ui.page.click("dialog.modal button:has-text('Delete')")
    row.wait_for(state="detached")


def test_upload_a_zip_and_watch_the_job_complete(ui: UI) -> None:
    ui.goto("/ui/administration/file-ingest")
    ui.page.set_input_files("#upload-files", str(ADCS / "adcs.zip"))
    ui.page.click("#upload-submit")
    status = ui.page.locator("#upload-status", has_text="being ingested")
    status.wait_for()
    job_id = re.search(r"job (\d+) is being ingested", status.inner_text()).group(1)  # type: ignore[union-attr]
    # This upload's row (other tests of this worker may have made jobs too, finished before or after it).
    first_job = ui.page.locator("#upload-jobs tbody tr", has_text=re.compile(rf"^\s*#{job_id}(?!\d)"))
    first_job.locator('[data-status="Complete"]').wait_for(timeout=120_000)
    assert "13/13" in first_job.inner_text()
    first_job.locator("button", has_text="Show").click()
    first_job.locator(".task-list li", has_text="users.json").wait_for()
    ui.screenshot("admin-file-ingest")


def test_data_quality_shows_the_uploaded_domain(ui: UI) -> None:
    ui.goto("/ui/data-quality")
    users = ui.page.locator('.stat[data-stat="users"] .stat-value')
    users.wait_for()
    assert int(users.inner_text()) > 0
    assert "ESC1.LOCAL" in ui.page.locator("#dq-environment").inner_text()
    ui.page.locator("svg.chart").first.wait_for()
    ui.screenshot("data-quality")


def test_create_an_api_token_see_its_key_once_and_delete_it(ui: UI) -> None:
    ui.goto("/ui/administration/api-tokens")
    name = unique("ui-token")
    ui.page.click("#create-token")
    ui.page.fill("#token-name", name)
    ui.page.click("dialog.modal button:has-text('Create')")
    key = ui.page.locator("#new-token-key")
    key.wait_for()
    assert len(key.inner_text()) > 20
    ui.screenshot("admin-token-created")
    ui.page.click("dialog.modal button:has-text('I have copied it')")
    row = ui.page.locator(f'tr[data-token="{name}"]')
    row.wait_for()
    assert key.count() == 0
    delete_row(ui, row)
    ui.screenshot("admin-tokens")


def test_users_and_roles(ui: UI) -> None:
    ui.goto("/ui/administration/users")
    principal = unique("ui-user")
    ui.page.click("#create-user")
    ui.page.fill("#new-user-principal", principal)
    ui.page.fill("#new-user-email", f"{principal}@example.test")
    ui.page.fill("#new-user-secret", PASSWORD)
    ui.page.select_option("#new-user-role", label="Read-Only")
    ui.page.click("dialog.modal button:has-text('Create')")
    row = ui.page.locator(f'tr[data-user="{principal}"]')
    row.wait_for()
    assert row.locator("select").evaluate("s => s.options[s.selectedIndex].text") == "Read-Only"
    ui.screenshot("admin-users")
    delete_row(ui, row)


def test_configuration_and_feature_flags(ui: UI) -> None:
    ui.goto("/ui/administration/configuration")
    ui.page.locator("#config-params .config-item").first.wait_for()
    ui.page.locator("#feature-flags li").first.wait_for()
    ui.screenshot("admin-configuration")
    ui.goto("/ui/administration/database")
    ui.page.locator("#clear-database").wait_for()
    ui.goto("/ui/administration/sso")
    ui.page.locator("#sso-table p, #sso-table table").first.wait_for()


def test_a_user_whose_password_expired_must_change_it(browser: Browser, live_server: LiveServer,
                                                        admin: httpx.Client) -> None:
    user = create_user(admin, "User", needs_password_reset=True)
    for other in open_ui(browser, live_server):
        other.goto("/ui/login")
        other.page.fill("#login-username", user["principal_name"])
        other.page.fill("#login-password", PASSWORD)
        other.page.click("#login-submit")
        other.page.locator("#new-password").wait_for()
        other.screenshot("login-password-change")
        other.page.fill("#new-password", "Another-Str0ng-Secret!")
        other.page.fill("#new-password-again", "Another-Str0ng-Secret!")
        other.page.click("button:has-text('Change password')")
        other.page.locator("#logout").wait_for()
        assert other.take_errors() == []


def test_log_out_and_in_again(ui: UI) -> None:
    ui.goto("/ui/explore")
    # Let the page's own requests finish: one still in flight when the session ends answers 401.
    ui.page.wait_for_load_state("networkidle")
    ui.page.click("#logout")
    ui.page.locator("#login-username").wait_for()
    assert ui.page.url.endswith("/ui/login")
    ui.screenshot("login")
    log_in(ui)
    assert ui.page.url.endswith("/ui/explore")


def test_a_4k_screen(browser: Browser, live_server: LiveServer) -> None:
    # A 4K monitor as browsers see it: 1920×1080 CSS pixels at a device pixel ratio of 2.
    for big in open_ui(browser, live_server, width=1920, height=1080, scale=2):
        log_in(big)
        big.page.fill("#node-search", "JONES")
        big.page.locator(".search-hit", has_text="JONES@ESC1.LOCAL").click()
        big.page.locator(".count-section").first.wait_for()
        big.screenshot("explore-4k")
        assert big.take_errors() == []
