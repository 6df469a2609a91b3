"""The Explore page in Chromium, on the two SharpHound labs: search, entity panel, pre-built and saved
queries, path finding, table view, exports and themes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from houndgraph.db import Database
from tests.labs import clear, load_labs
from tests.ui.browser import UI, choose, click_graph_centre, drawn_graph, graph_stats, open_explore

JONES = "JONES@ESC1.LOCAL"
DOMAIN = "ESC1.LOCAL"


@pytest.fixture(scope="module", autouse=True)
def labs(database: Database) -> Iterator[None]:
    load_labs(database)
    yield
    clear(database)


def edge_labels(graph: dict[str, Any]) -> set[tuple[str, str, str]]:
    names = {node["id"]: node["label"] for node in graph["nodes"]}
    return {(names[e["source"]], e["kind"], names[e["target"]]) for e in graph["edges"]}


def test_search_as_you_type_opens_the_entity_panel(ui: UI) -> None:
    open_explore(ui)
    ui.page.fill("#node-search", "JONES")
    hit = ui.page.locator(".search-hit", has_text=JONES)
    hit.wait_for()
    ui.screenshot("explore-search-results")
    hit.click()
    assert ui.page.locator("#entity-name").inner_text() == JONES
    ui.page.locator(".count-section").first.wait_for()
    assert ui.page.locator("#graph-stats").inner_text() == "1 nodes, 0 edges"
    ui.screenshot("explore-entity-panel")


def test_a_count_expands_into_its_list_and_draws(ui: UI) -> None:
    section = ui.page.locator('.count-section[data-count="groupMembership"]')
    count = int(section.locator(".count").inner_text())
    assert count > 0
    section.locator("summary").click()
    items = section.locator(".entity-list li")
    items.first.wait_for()
    assert items.count() == count
    assert "DOMAIN USERS@ESC1.LOCAL" in section.inner_text()
    section.locator('button[data-count="groupMembership"]').click()
    graph_stats(ui, f"^{count + 1} nodes")
    assert (JONES, "MemberOf", "DOMAIN USERS@ESC1.LOCAL") in edge_labels(drawn_graph(ui))
    ui.screenshot("explore-count-drawn")


def test_the_prebuilt_esc1_search_draws_jones_to_the_domain(ui: UI) -> None:
    open_explore(ui, "cypher")
    ui.page.click("#prebuilt-queries summary:has-text('Active Directory Certificate Services')")
    ui.page.click("text=ESC1: principals that can impersonate anyone through a template")
    graph_stats(ui, "[1-9][0-9]* edges")
    assert "ADCSESC1" in ui.page.locator("#cypher-query").input_value()
    assert (JONES, "ADCSESC1", DOMAIN) in edge_labels(drawn_graph(ui))
    ui.screenshot("explore-prebuilt-esc1")


def test_the_hierarchical_layout_and_hidden_labels(ui: UI) -> None:
    ui.page.select_option("#layout-select", "hierarchical")
    ui.page.click("#toggle-labels")
    assert ui.page.locator("#toggle-labels").get_attribute("aria-pressed") == "true"
    ui.screenshot("explore-hierarchical-no-labels")
    ui.page.click("#toggle-labels")
    ui.page.select_option("#layout-select", "force")
    with ui.page.expect_download() as download:
        ui.page.click("#export-png")
    assert download.value.path().read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_path_between_two_searched_nodes(ui: UI) -> None:
    open_explore(ui, "pathfinding")
    choose(ui, "path-start", "JONES", JONES)
    choose(ui, "path-end", "ESC1.LOCAL", DOMAIN)
    graph_stats(ui, "[1-9][0-9]* edges")
    graph = drawn_graph(ui)
    labels = {node["label"] for node in graph["nodes"]}
    assert {JONES, DOMAIN} <= labels
    assert graph["edges"]
    ui.screenshot("explore-pathfinding")


def test_an_edge_click_opens_its_help(ui: UI) -> None:
    graph = drawn_graph(ui)
    assert len(graph["edges"]) == 1, "JONES reaches the domain in one ADCSESC1 step"
    box = ui.page.locator("#graph").bounding_box()
    assert box
    # The edge crosses the centre of the canvas; it is a few pixels thick, so try the pixels around the centre.
    for dy in (0, -2, 2, -4, 4, -6, 6):
        ui.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + dy)
        if ui.page.locator("#edge-kind").count():
            break
    assert ui.page.locator("#edge-kind").inner_text() == "ADCSESC1"
    panel = ui.page.locator("#entity-panel")
    assert "Abuse" in panel.inner_text() and "Remediation" in panel.inner_text()
    ui.screenshot("explore-edge-panel")


def test_right_click_sets_the_start_node(ui: UI) -> None:
    open_explore(ui)
    choose(ui, "node-search", "SMITH", "SMITH@ESC1.LOCAL")
    graph_stats(ui, "^1 nodes")
    click_graph_centre(ui, "right")
    menu = ui.page.locator("#context-menu")
    menu.locator("button", has_text="Set as starting node").wait_for()
    ui.screenshot("explore-context-menu")
    menu.locator("button", has_text="Set as starting node").click()
    assert ui.page.locator("#path-start").input_value() == "SMITH@ESC1.LOCAL"
    choose(ui, "path-end", "ESC1.LOCAL", DOMAIN)
    graph_stats(ui, "[1-9][0-9]* edges")


def test_the_path_edge_filter_excludes_kinds(ui: UI) -> None:
    ui.page.click("#path-filter")
    dialog = ui.page.locator("dialog.modal")
    dialog.locator("summary", has_text="Active Directory Certificate Services").first.click()
    dialog.locator('input[data-kind="ADCSESC1"]').uncheck()
    ui.screenshot("explore-path-filter")
    ui.page.evaluate("() => { document.querySelector('#path-status').dataset.state = 'edited' }")
    dialog.locator("button", has_text="Apply").click()
    ui.page.locator('#path-status[data-state="done"]').wait_for()
    if ui.page.locator("#path-status").inner_text() == "":
        assert "ADCSESC1" not in {edge["kind"] for edge in drawn_graph(ui)["edges"]}
    else:
        assert ui.page.locator("#path-status").inner_text() == "No path between these nodes."


def test_hide_a_node_from_the_view(ui: UI) -> None:
    open_explore(ui)
    choose(ui, "node-search", "SMITH", "SMITH@ESC1.LOCAL")
    graph_stats(ui, "^1 nodes")
    click_graph_centre(ui, "right")
    ui.page.locator("#context-menu button", has_text="Hide from view").click()
    expect(ui.page.locator("#graph-empty")).to_be_visible()
    assert drawn_graph(ui)["nodes"] == []


def test_save_a_query_and_find_it_again(ui: UI) -> None:
    open_explore(ui, "cypher")
    ui.page.fill("#cypher-query", "MATCH (u:User) WHERE u.name STARTS WITH 'JONES' RETURN u")
    ui.page.click("#cypher-save")
    ui.page.fill("#save-query-name", "Jones himself")
    ui.page.click("dialog.modal button:has-text('Save')")
    ui.page.locator('.saved-query[data-name="Jones himself"]').wait_for()
    ui.page.reload()
    ui.page.click("#tab-cypher")
    saved = ui.page.locator('.saved-query[data-name="Jones himself"]')
    saved.locator(".query-name").click()
    graph_stats(ui, "^1 nodes, 0 edges$")
    ui.screenshot("explore-saved-query")


def test_export_delete_and_import_a_saved_query(ui: UI, tmp_path: Path) -> None:
    saved = ui.page.locator('.saved-query[data-name="Jones himself"]')
    with ui.page.expect_download() as download:
        saved.locator("button", has_text="Export").click()
    exported = tmp_path / "jones.json"
    download.value.save_as(exported)
    assert "JONES" in json.loads(exported.read_text())["query"]
    saved.locator("button", has_text="Delete").click()
    ui.page.click("dialog.modal button:has-text('Delete')")
    saved.wait_for(state="detached")
    ui.page.set_input_files("#import-queries", str(exported))
    saved.wait_for()


def test_a_non_graph_result_shows_as_a_table(ui: UI) -> None:
    open_explore(ui, "cypher")
    ui.page.fill("#cypher-query",
                 "MATCH (u:User) WHERE u.domain = 'ESC1.LOCAL' RETURN u.name, u.enabled ORDER BY u.name")
    ui.page.click("#cypher-run")
    table = ui.page.locator("#result-table")
    table.wait_for()
    assert table.locator("th").all_inner_texts() == ["u.name", "u.enabled"]
    assert JONES in table.inner_text()
    ui.screenshot("explore-table-view")


def test_the_result_table_sorts_chooses_columns_and_exports_them(ui: UI) -> None:
    open_explore(ui, "cypher")
    ui.page.fill("#cypher-query", "MATCH (u:User) WHERE u.domain = 'ESC1.LOCAL' RETURN u.name, u.enabled")
    ui.page.click("#cypher-run")
    table = ui.page.locator("#result-table")
    table.locator("tbody tr").first.wait_for()
    names = table.locator("tbody td:first-child").all_inner_texts()
    header = table.locator("th", has_text="u.name")
    header.locator("button").click()
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "descending"
    descending = table.locator("tbody td:first-child").all_inner_texts()
    assert descending == sorted(names, reverse=True)
    table.locator(".column-chooser summary").click()
    table.locator(".column-chooser label", has_text="u.enabled").click()
    assert table.locator("th").all_inner_texts() == ["u.name"]
    ui.screenshot("explore-table-columns")
    with ui.page.expect_download() as download:
        table.locator("#result-csv").click()
    lines = download.value.path().read_text().splitlines()
    assert lines == ["u.name", *descending]


def test_switching_the_theme(ui: UI) -> None:
    open_explore(ui, "search")
    before = ui.page.evaluate("document.documentElement.dataset.theme")
    ui.page.click("#theme-toggle")
    after = ui.page.evaluate("document.documentElement.dataset.theme")
    assert {before, after} == {"light", "dark"}
    choose(ui, "node-search", "JONES", JONES)
    ui.page.locator(".count-section").first.wait_for()
    ui.screenshot(f"explore-theme-{after}")
    ui.page.reload()
    assert ui.page.evaluate("document.documentElement.dataset.theme") == after
    ui.page.click("#theme-toggle")
