"""The Attack Paths and Posture pages in Chromium, on the hand-built HOUND.LOCAL domain analysed twice:
finding types by severity, one type's explanation, principals, acceptance, CSV and choke-point graph; the
posture figures and charts."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from tests.attack_path.graphs import FINDING_TABLES, SID, load
from tests.ui.browser import SCREENSHOTS, UI

# What the domain holds (tests/attack_path/graphs.py): Hal's GenericAll on Domain Admins, the
# Kerberoastable Tier Zero Administrator, WS1 without LAPS, Administrator logged on to WS1.
EXPECTED_TYPES = {"T0GenericAll", "Kerberoasting", "ComputersWithoutLAPS", "T0Logins"}


@pytest.fixture(scope="module", autouse=True)
def analysed_twice(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    load(database, tmp_path_factory.mktemp("hound"))
    with database.connect_raw() as conn:
        run_analysis(conn)
        conn.commit()
    yield
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")


def open_type(ui: UI, name: str) -> None:
    ui.goto(f"/ui/attack-paths/{SID}/{name}")
    ui.page.locator("#finding-principals tbody tr").first.wait_for()


def test_finding_types_are_grouped_by_severity_and_sorted_by_what_to_fix_first(ui: UI) -> None:
    ui.goto("/ui/attack-paths")
    ui.page.locator("tr[data-type]").first.wait_for()
    assert ui.page.locator("nav[aria-label='Main'] a", has_text="Attack Paths").get_attribute("aria-current") == "page"
    shown = ui.page.locator("tr[data-type]").evaluate_all("rows => rows.map(r => r.dataset.type)")
    assert set(shown) == EXPECTED_TYPES
    order = ["critical", "high", "moderate", "low"]
    groups = ui.page.locator("tbody[data-severity]").evaluate_all("bodies => bodies.map(b => b.dataset.severity)")
    assert groups == sorted(groups, key=order.index)
    exposures = [float(text.rstrip("%")) for text in ui.page.locator(
        "tbody[data-severity] tr[data-type] td:nth-child(2)").all_inner_texts()]
    for severity in groups:
        within = [float(t.rstrip("%")) for t in ui.page.locator(
            f"tbody[data-severity='{severity}'] tr[data-type] td:nth-child(2)").all_inner_texts()]
        assert within == sorted(within, reverse=True)
    assert exposures
    # Two analyses: every type has a two-point trend and no change since the previous run.
    assert ui.page.locator("tr[data-type='T0GenericAll'] .delta").inner_text() == "±0"
    assert ui.page.locator("tr[data-type='T0GenericAll'] svg.sparkline path").count() == 1
    assert SID in ui.page.url
    ui.screenshot("attack-paths")


def test_one_finding_type_explains_itself_and_lists_its_principals(ui: UI) -> None:
    open_type(ui, "T0GenericAll")
    assert ui.page.locator("tr[data-type='T0GenericAll']").get_attribute("aria-selected") == "true"
    for part in ("what", "why", "remediation"):
        assert len(ui.page.locator(f"#finding-{part}").inner_text()) > 40
    row = ui.page.locator("#finding-principals tbody tr")
    expect(row).to_have_count(1)
    assert "HAL@HOUND.LOCAL" in row.inner_text() and "DOMAIN ADMINS@HOUND.LOCAL" in row.inner_text()
    assert ui.page.locator(".finding-detail svg.chart").first.locator("circle").count() == 2
    ui.screenshot("attack-paths-finding")


def test_accept_a_finding_as_risk_until_a_date_and_withdraw_it(ui: UI) -> None:
    open_type(ui, "Kerberoasting")
    row = ui.page.locator("#finding-principals tbody tr", has_text="ADMINISTRATOR@HOUND.LOCAL")
    row.locator("button", has_text="Accept risk").click()
    ui.page.fill("#accept-until", "2099-06-30")
    ui.page.fill("#accept-reason", "Service account with a 64-character password, rotated monthly")
    ui.screenshot("attack-paths-accept")
    ui.page.click("dialog.modal button:has-text('Accept risk')")
    expect(row.locator(".chip-accepted")).to_contain_text("2099")
    expect(row.locator(".acceptance-note")).to_have_text(
        "by admin: Service account with a 64-character password, rotated monthly")
    ui.screenshot("attack-paths-accepted")
    ui.page.select_option("#finding-acceptance", "unaccepted")
    expect(ui.page.locator("#finding-principals tbody tr", has_text="ADMINISTRATOR@HOUND.LOCAL")).to_have_count(0)
    ui.page.select_option("#finding-acceptance", "accepted")
    accepted = ui.page.locator("#finding-principals tbody tr", has_text="ADMINISTRATOR@HOUND.LOCAL")
    accepted.locator("button", has_text="Withdraw acceptance").click()
    expect(ui.page.locator("#finding-principals tbody tr")).to_have_count(0)
    ui.page.select_option("#finding-acceptance", "all")
    expect(row.locator(".chip-accepted")).to_have_count(0)


def test_export_one_finding_type_as_csv(ui: UI) -> None:
    open_type(ui, "Kerberoasting")
    with ui.page.expect_download() as download:
        ui.page.click("#finding-csv")
    assert download.value.suggested_filename == f"{SID}-Kerberoasting.csv"
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text())))
    assert {row["principal_name"] for row in rows} == {"ADMINISTRATOR@HOUND.LOCAL"}
    assert {row["finding_type"] for row in rows} == {"Kerberoasting"}


def test_choke_point_edges_are_drawn_on_a_graph(ui: UI) -> None:
    open_type(ui, "T0GenericAll")
    with ui.page.expect_response(re.compile(r"/api/v2/graphs/cypher$")) as answer:
        ui.page.click("#finding-draw")
    assert answer.value.status == 200
    graph = answer.value.json()["data"]
    names = {node["label"] for node in graph["nodes"].values()}
    assert names == {"HAL@HOUND.LOCAL", "DOMAIN ADMINS@HOUND.LOCAL"}
    assert [edge["kind"] for edge in graph["edges"]] == ["GenericAll"]
    ui.page.locator("#finding-graph canvas").first.wait_for()
    ui.page.locator("#finding-graph").scroll_into_view_if_needed()
    ui.screenshot("attack-paths-graph")


def test_posture_shows_the_latest_figures_their_change_and_charts(ui: UI) -> None:
    ui.goto("/ui/posture")
    tier_zero = ui.page.locator('.stat[data-stat="tier_zero_count"] .stat-value')
    tier_zero.wait_for()
    assert int(tier_zero.inner_text()) >= 2  # Administrator and Domain Admins at least
    assert ui.page.locator('.stat[data-stat="finding_count"] .stat-change').inner_text() == "no change"
    expect(ui.page.locator("#posture-table tbody tr")).to_have_count(1)
    assert ui.page.locator("figure[data-chart='exposure_index'] circle").count() == 2
    ui.page.select_option("#posture-environment", SID)
    expect(ui.page.locator("#posture-table")).to_have_count(0)
    ui.page.fill("#posture-from", "2001-01-01")
    ui.page.fill("#posture-to", "2001-01-31")
    ui.page.locator("#posture-to").dispatch_event("change")
    expect(ui.page.locator("#posture-content .empty-state")).to_contain_text("No analysis in this date range")
    ui.goto("/ui/posture")
    tier_zero.wait_for()
    ui.screenshot("posture")


def test_the_report_downloads_from_the_posture_page(ui: UI) -> None:
    ui.goto("/ui/posture")
    ui.page.locator('.stat[data-stat="tier_zero_count"]').wait_for()
    ui.page.select_option("#posture-environment", SID)
    with ui.page.expect_download() as download:
        ui.page.click("#posture-report")
    assert re.fullmatch(r"houndgraph-report-hound\.local-\d{4}-\d{2}-\d{2}\.html", download.value.suggested_filename)
    html = download.value.path().read_text()
    assert "What to fix first" in html
    # A page of its own, as a file opened from disk: no CSP of the service, nothing fetched.
    report = ui.page.context.new_page()
    try:
        requests: list[str] = []
        report.on("request", lambda request: requests.append(request.url))
        report.set_content(html)
        report.locator('[data-finding="Kerberoasting"]').wait_for()
        assert requests == []
        SCREENSHOTS.mkdir(exist_ok=True)
        report.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=True)
    finally:
        report.close()


def test_the_page_is_usable_from_the_keyboard(ui: UI) -> None:
    ui.goto(f"/ui/attack-paths/{SID}/T0GenericAll")
    ui.page.locator("#finding-principals tbody tr").first.wait_for()
    ui.page.locator("#finding-window").focus()
    for _ in range(20):  # Tab through the controls to the first finding type (the critical one)
        ui.page.keyboard.press("Tab")
        if ui.page.evaluate("document.activeElement.classList.contains('finding-name')"):
            break
    assert ui.page.evaluate("document.activeElement.textContent") == "Kerberoastable Tier Zero users"
    ui.page.keyboard.press("Enter")
    expect(ui.page.locator("#finding-title")).to_have_text("Kerberoastable Tier Zero users")
    accept = ui.page.locator("#finding-principals button", has_text="Accept risk")
    accept.focus()
    ui.page.keyboard.press("Enter")
    dialog = ui.page.locator("dialog.modal")
    expect(dialog).to_be_visible()
    assert ui.page.evaluate("document.activeElement.id") == "accept-until"
    ui.page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
