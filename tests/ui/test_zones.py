"""Privilege zones in Chromium, on the two SharpHound labs: owned marking from the graph's context menu, the
Privilege Zones page (a zone with an object-id selector, its preview, its members after the analysis it
triggers, certification), and the SSO providers on the login page."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect

from houndgraph.db import Database
from tests.asset_group_tag.conftest import _reset as reset_zones
from tests.conftest import ADMIN_PASSWORD, LiveServer, login
from tests.labs import ADCS, clear, load_labs, merged
from tests.sso.conftest import create as create_saml_provider
from tests.sso.conftest import unique_name
from tests.sso.idp_documents import AZURE_AD
from tests.ui.browser import UI, choose, click_graph_centre, drawn_graph, graph_stats, open_explore, open_ui

JONES = "JONES@ESC1.LOCAL"
JONES_SID = next(oid for oid, user in merged(ADCS, "users").items() if user["Properties"].get("name") == JONES)
ANALYSIS = 180_000  # ms: the datapipe analyses both labs after each change, beside other test workers


@pytest.fixture(scope="module", autouse=True)
def labs(database: Database) -> Iterator[None]:
    reset_zones(database)
    load_labs(database)
    yield
    reset_zones(database)
    clear(database)


def context_menu(ui: UI, entry: str) -> None:
    click_graph_centre(ui, "right")
    ui.page.locator("#context-menu button", has_text=entry).click()


def test_mark_a_node_owned_and_see_it_marked(ui: UI) -> None:
    open_explore(ui)
    choose(ui, "node-search", "JONES", JONES)
    graph_stats(ui, "^1 nodes")
    owned_chip = ui.page.locator("#entity-panel .chip-owned")
    assert owned_chip.count() == 0
    context_menu(ui, "Mark as owned")
    owned_chip.wait_for(timeout=ANALYSIS)
    [jones] = drawn_graph(ui)["nodes"]
    assert jones["label"] == JONES and jones["isOwnedObject"] is True
    ui.screenshot("explore-marked-owned")
    click_graph_centre(ui, "right")
    ui.page.locator("#context-menu button", has_text="Unmark as owned").wait_for()
    ui.screenshot("explore-context-menu-owned")
    ui.page.locator("#context-menu button", has_text="Unmark as owned").click()
    owned_chip.wait_for(state="detached", timeout=ANALYSIS)
    assert drawn_graph(ui)["nodes"][0]["isOwnedObject"] is False


def test_add_a_node_to_tier_zero_and_remove_it(ui: UI) -> None:
    tier_zero = ui.page.locator("#entity-panel .chip-tier-zero")
    assert tier_zero.count() == 0
    context_menu(ui, "Add to zone…")
    dialog = ui.page.locator("dialog.modal")
    dialog.locator("#zone-choice").select_option(label="Tier Zero (Zone)")
    dialog.locator("button", has_text="Add").click()
    tier_zero.wait_for(timeout=ANALYSIS)
    ui.screenshot("explore-added-to-tier-zero")
    context_menu(ui, "Remove from zone…")
    dialog.locator("#zone-choice").select_option(label="Tier Zero (Zone)")
    dialog.locator("button", has_text="Remove").click()
    tier_zero.wait_for(state="detached", timeout=ANALYSIS)


def test_create_a_zone_with_an_object_id_selector_and_see_its_members(ui: UI) -> None:
    ui.goto("/ui/zones")
    ui.page.locator('.zone-tag[data-tag="Tier Zero"]').wait_for()
    ui.page.click("#create-tag")
    ui.page.fill("#tag-name", "UI Test Zone")
    ui.page.fill("#tag-description", "Objects the browser test puts here")
    ui.page.click("dialog.modal button:has-text('Create')")
    expect(ui.page.locator("#zone-title")).to_have_text("UI Test Zone")
    ui.page.click("#create-selector")
    ui.page.fill("#selector-name", "Jones")
    ui.page.select_option("#selector-seed-type", label="Object IDs")
    ui.page.fill("#selector-seeds", JONES_SID)
    ui.page.click("#selector-preview-run")
    ui.page.locator(f'.preview-member[data-member="{JONES}"]').wait_for()
    previewed = ui.page.locator(".preview-member").count()  # JONES, and his parent objects (OU, GPO)
    ui.screenshot("zones-selector-preview")
    ui.page.click("dialog.modal button:has-text('Create')")
    ui.page.locator('.selector-row[data-selector="Jones"]').wait_for()
    member = ui.page.locator(f'.member-row[data-member="{JONES}"]')
    member.wait_for(timeout=ANALYSIS)
    expect(ui.page.locator("#member-total")).to_have_text("1 member")
    expect(ui.page.locator('.zone-tag[data-tag="UI Test Zone"] .count')).to_have_text("1")
    expect(ui.page.locator('.selector-row[data-selector="Jones"] .selector-members')).to_have_text(str(previewed))
    ui.screenshot("zones-members")


def test_certify_a_member(ui: UI) -> None:
    ui.page.click("#edit-tag")
    ui.page.check("#tag-require-certify")
    ui.page.click("dialog.modal button:has-text('Save')")
    # With certification required only certified objects are members: once the analysis the change asked for has run,
    # JONES waits for certification (until then the page may still show him as a member whose certification is
    # pending, for as long as the datapipe takes).
    expect(ui.page.locator("#member-total")).to_have_text("0 members", timeout=ANALYSIS)
    expect(ui.page.locator("#pending-certification")).to_contain_text(JONES)
    ui.page.click("#certify-all")
    certification = ui.page.locator(f'.member-row[data-member="{JONES}"] .certification')
    expect(certification).to_have_text("Certified", timeout=ANALYSIS)
    ui.screenshot("zones-certified")


def test_edit_disable_and_delete_a_selector_then_the_zone(ui: UI) -> None:
    row = ui.page.locator('.selector-row[data-selector="Jones"]')
    row.locator("button", has_text="Edit").click()
    expect(ui.page.locator("#selector-seeds")).to_have_value(JONES_SID)
    ui.page.fill("#selector-description", "JONES, by his SID")
    ui.page.click("dialog.modal button:has-text('Save')")
    expect(row).to_contain_text("JONES, by his SID")
    row.locator("button", has_text="Disable").click()
    expect(row.locator(".chip", has_text="Disabled")).to_be_visible()
    ui.page.locator(f'.member-row[data-member="{JONES}"]').wait_for(state="detached", timeout=ANALYSIS)
    row.locator("button", has_text="Delete").click()
    ui.page.click("dialog.modal button:has-text('Delete')")
    row.wait_for(state="detached")
    ui.page.click("#delete-tag")
    ui.page.click("dialog.modal button:has-text('Delete')")
    ui.page.locator('.zone-tag[data-tag="UI Test Zone"]').wait_for(state="detached")


def test_tier_zero_lists_its_default_selectors_in_the_dark_theme(ui: UI) -> None:
    ui.page.click('.zone-tag[data-tag="Tier Zero"]')
    expect(ui.page.locator("#zone-title")).to_have_text("Tier Zero")
    domain_admins = ui.page.locator('.selector-row[data-selector="Domain Admins"]')
    domain_admins.wait_for()
    assert "Default" in domain_admins.inner_text()
    assert domain_admins.locator("button", has_text="Delete").count() == 0
    expect(ui.page.locator("#member-total")).to_have_text(re.compile(r"^[1-9]\d* members$"))
    theme = ui.page.evaluate("document.documentElement.dataset.theme")
    if theme != "dark":
        ui.page.click("#theme-toggle")
    ui.screenshot("zones-tier-zero-dark")
    if theme != "dark":
        ui.page.click("#theme-toggle")


@pytest.fixture
def saml_provider(admin: httpx.Client) -> Iterator[str]:
    name = unique_name("ui-idp")
    response = create_saml_provider(admin, name, AZURE_AD)
    assert response.status_code in (200, 201), response.text
    yield name
    admin.delete(f"/api/v2/sso-providers/{response.json()['data']['sso_provider_id']}")


def test_the_login_page_lists_the_sso_providers(browser: Browser, live_server: LiveServer, saml_provider: str,
                                               client: httpx.Client) -> None:
    for anonymous in open_ui(browser, live_server):
        anonymous.goto("/ui/login")
        button = anonymous.page.locator(f'.sso-button[data-provider="{saml_provider}"]')
        button.wait_for()
        assert button.inner_text() == f"Log in with {saml_provider}"
        href = button.get_attribute("href") or ""
        assert href.startswith(live_server.base_url + "/api/v2/sso/") and href.endswith("/login")
        anonymous.screenshot("login-sso-providers")
        # A `token` cookie this tab did not ask for (planted by another site: login CSRF) is dropped unread.
        token = login(client, "admin", ADMIN_PASSWORD)
        anonymous.page.context.add_cookies([{"name": "token", "value": token, "url": live_server.base_url}])
        anonymous.goto("/ui/")
        anonymous.page.locator("#login-submit").wait_for()
        assert not [c for c in anonymous.page.context.cookies() if c["name"] == "token"]
        # The SSO sign-in this tab started (the provider's button; its navigation held back here, as no
        # provider runs) ends on /ui/ with the session in a cookie: the UI takes it and is signed in.
        button = anonymous.page.locator(f'.sso-button[data-provider="{saml_provider}"]')
        button.evaluate("b => { b.addEventListener('click', e => e.preventDefault()); b.click(); }")
        anonymous.page.context.add_cookies([{"name": "token", "value": token, "url": live_server.base_url}])
        anonymous.goto("/ui/")
        anonymous.page.locator("#logout").wait_for()
        assert not [c for c in anonymous.page.context.cookies() if c["name"] == "token"]
        # Log out once the page's own requests have finished (one still in flight would answer 401).
        anonymous.page.wait_for_load_state("networkidle")
        anonymous.page.click("#logout")
        anonymous.page.locator("#login-submit").wait_for()
        # A failed SSO sign-in comes back to the UI with the reason, which the login page shows.
        anonymous.goto("/ui/login?error=the%20assertion%20has%20expired")
        expect(anonymous.page.locator(".login-card .form-error")).to_have_text(
            "Single sign-on failed: the assertion has expired")
        assert anonymous.take_errors() == []
