"""Explore extras in Chromium, on the two SharpHound labs and an OpenGraph collector's people (source kind HR):
the SVG export, custom node kinds drawn with their icon and colour, the Cypher behind each entity-panel section,
many nodes picked and marked owned or added to a zone at once, and the database page by source kind."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from houndgraph.db import Database
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file
from tests.labs import SEEN, clear, load_labs
from tests.ui.browser import SCREENSHOTS, UI, choose, click_graph_centre, drawn_graph, graph_stats, open_explore
from tests.ui.test_accessibility import serious_violations

JONES = "JONES@ESC1.LOCAL"
DOMAIN = "ESC1.LOCAL"
SVG = "{http://www.w3.org/2000/svg}"
FONT_AWESOME = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "@fortawesome" / "free-solid-svg-icons"
PEOPLE = {"metadata": {"source_kind": "HR"}, "graph": {
    "nodes": [{"id": "PERSON-ALICE", "kinds": ["Person"], "properties": {"name": "ALICE@HR"}},
              {"id": "PERSON-BOB", "kinds": ["Person"], "properties": {"name": "BOB@HR"}}],
    "edges": [{"start": {"value": "PERSON-ALICE"}, "end": {"value": "PERSON-BOB"}, "kind": "Manages"}]}}
PICKED = ["SMITH@ESC1.LOCAL", "MILLER@ESC1.LOCAL", "GARCIA@ESC1.LOCAL"]


@pytest.fixture(scope="module", autouse=True)
def labs(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    load_labs(database)
    people = tmp_path_factory.mktemp("hr") / "people.json"
    people.write_text(json.dumps(PEOPLE))
    with database.connect_raw() as conn:
        store = GraphStore(conn)
        for file in expand_upload(people, max_unzipped_bytes=1 << 20, max_ratio=1000):
            for batch in read_file(file):
                store.write(batch, seen_at=SEEN)
        conn.commit()
    yield
    clear(database)
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("DELETE FROM source_kinds WHERE name = 'HR'")  # registered by the people's file


def exported_svg(ui: UI) -> ET.Element:
    with ui.page.expect_download() as download:
        ui.page.click("#export-svg")
    assert download.value.suggested_filename == "houndgraph-graph.svg"
    return ET.fromstring(download.value.path().read_text())


def look_at_svg(ui: UI, svg: ET.Element, name: str) -> None:
    """Opens the exported document in a page of its own and screenshots it."""
    page = ui.page.context.new_page()
    try:
        ET.register_namespace("", SVG[1:-1])
        page.set_content(ET.tostring(svg, encoding="unicode"))
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    finally:
        page.close()


def test_the_svg_export_draws_what_the_screen_shows(ui: UI) -> None:
    open_explore(ui, "pathfinding")
    choose(ui, "path-start", "JONES", JONES)
    choose(ui, "path-end", "ESC1.LOCAL", DOMAIN)
    graph_stats(ui, "^2 nodes, 1 edges$")
    svg = exported_svg(ui)
    nodes = svg.findall(f".//{SVG}g[@class='node']")
    assert len(nodes) == 2
    assert len(svg.findall(f".//{SVG}line")) == 1
    texts = {text.text for text in svg.iter(f"{SVG}text")}
    assert {JONES, DOMAIN, "ADCSESC1"} <= texts
    # Each node: a circle of its kind's colour and its pictogram.
    fills = {node.find(f"{SVG}circle[last()]").get("fill") for node in nodes}  # type: ignore[union-attr]
    assert fills == {"#2fa84f", "#159e8a"}  # User, Domain
    assert all(node.find(f"{SVG}svg/{SVG}path") is not None or node.find(f"{SVG}svg/{SVG}circle") is not None
               for node in nodes)
    look_at_svg(ui, svg, "explore-export-svg")


def font_awesome_path(name: str) -> str:
    source = (FONT_AWESOME / "index.mjs").read_text()
    icon = r"',\s*icon: \[\d+, \d+, \[[^\]]*\], \"[0-9a-f]+\", \"([^\"]+)\""
    found = re.search(r"iconName: '" + re.escape(name) + icon, source)
    assert found, f"no Font Awesome icon {name}"
    return found.group(1)


def test_custom_node_kinds_are_drawn_with_their_icon_and_colour(ui: UI, admin: httpx.Client) -> None:
    created = admin.post("/api/v2/custom-nodes", json={"custom_types": {
        "Person": {"icon": {"type": "font-awesome", "name": "user-tie", "color": "#8E44AD"}}}})
    assert created.status_code == 201, created.text
    try:
        open_explore(ui, "cypher")  # the page reads the custom kinds as it opens
        # The search box lists AD and Azure objects only (as the reference's does): Cypher draws the people.
        ui.page.fill("#cypher-query", "MATCH p = (:Person)-[:Manages]->(:Person) RETURN p")
        ui.page.click("#cypher-run")
        graph_stats(ui, "^2 nodes, 1 edges$")
        svg = exported_svg(ui)
        nodes = svg.findall(f".//{SVG}g[@class='node']")
        assert len(nodes) == 2
        for node in nodes:
            assert node.findall(f"{SVG}circle")[-1].get("fill") == "#8E44AD"
            assert node.find(f"{SVG}svg/{SVG}path").get("d") == font_awesome_path("user-tie")  # type: ignore[union-attr]
        ui.screenshot("explore-custom-kind")
    finally:
        admin.delete("/api/v2/custom-nodes/Person")


def listed_names(ui: UI, key: str) -> set[str]:
    section = ui.page.locator(f'.count-section[data-count="{key}"]')
    if section.locator("details").get_attribute("open") is None:
        section.locator("summary").click()
    section.locator(".entity-list li").first.wait_for()
    return set(section.locator(".entity-list li").all_inner_texts())


def run_section_cypher(ui: UI, key: str) -> str:
    section = ui.page.locator(f'.count-section[data-count="{key}"]')
    section.locator(".section-actions button", has_text="Cypher").click()
    query = section.locator(".cypher-text").inner_text()
    section.locator("button", has_text="Run in the Cypher tab").click()
    expect(ui.page.locator("#cypher-status")).to_have_text("", timeout=30_000)
    assert ui.page.locator("#cypher-query").input_value() == query
    return query


@pytest.mark.parametrize(("search", "name"), [("JONES", JONES), ("ESC1.LOCAL", DOMAIN)])
def test_the_cypher_behind_each_panel_section_draws_what_it_lists(ui: UI, search: str, name: str) -> None:
    open_explore(ui)
    choose(ui, "node-search", search, name)
    ui.page.locator(".count-section").first.wait_for()
    checked = 0
    for section in ui.page.locator(".count-section").all():
        key = section.get_attribute("data-count")
        count = int(section.locator(".count").inner_text())
        assert key and section.locator(".section-actions button", has_text="Cypher").count() == 1, key
        if not 0 < count <= 100:
            continue
        listed = listed_names(ui, key)
        query = run_section_cypher(ui, key)
        drawn = {node["label"] for node in drawn_graph(ui)["nodes"]}
        assert listed <= drawn, f"{key}: {query} misses {listed - drawn}"
        checked += 1
    assert checked >= 2
    ui.screenshot(f"explore-section-cypher-{search.lower()}")


def owned_tag(admin: httpx.Client) -> dict:
    tags = admin.get("/api/v2/asset-group-tags").json()["data"]["tags"]
    return next(tag for tag in tags if tag["type"] == 3)


def selector_seeds(admin: httpx.Client, tag_id: int) -> dict[int, str]:
    answer = admin.get(f"/api/v2/asset-group-tags/{tag_id}/selectors", params={"limit": 1000})
    selectors = answer.json()["data"]["selectors"]
    return {s["id"]: seed["value"] for s in selectors for seed in s.get("seeds") or []}


def test_picked_nodes_are_marked_owned_and_added_to_a_zone_at_once(ui: UI, admin: httpx.Client) -> None:
    open_explore(ui, "cypher")
    names = ", ".join(f"'{name}'" for name in PICKED)
    ui.page.fill("#cypher-query", f"MATCH (u:User) WHERE u.name IN [{names}] RETURN u")
    ui.page.click("#cypher-run")
    graph_stats(ui, "^3 nodes")
    ids = {node["objectId"] for node in drawn_graph(ui)["nodes"]}
    ui.page.click("#select-all")
    expect(ui.page.locator("#selection-count")).to_have_text("3 selected")
    ui.screenshot("explore-selection")
    owned = owned_tag(admin)
    before = selector_seeds(admin, owned["id"])
    ui.page.click("#selection-owned")
    ui.page.locator(".toast", has_text="3 nodes marked as owned").wait_for()
    added = {k: v for k, v in selector_seeds(admin, owned["id"]).items() if k not in before}
    assert set(added.values()) == ids
    tags = admin.get("/api/v2/asset-group-tags").json()["data"]["tags"]
    tier_zero = next(t for t in tags if t["type"] == 1 and t["position"] == 1)
    zone_before = selector_seeds(admin, tier_zero["id"])
    ui.page.click("#selection-zone")
    ui.page.select_option("#zone-choice", str(tier_zero["id"]))
    ui.page.click("dialog.modal button:has-text('Add')")
    ui.page.locator(".toast", has_text=f"3 nodes added to {tier_zero['name']}").wait_for()
    zone_added = {k: v for k, v in selector_seeds(admin, tier_zero["id"]).items() if k not in zone_before}
    assert set(zone_added.values()) == ids
    for tag_id, selectors in ((owned["id"], added), (tier_zero["id"], zone_added)):
        for selector_id in selectors:
            assert admin.delete(f"/api/v2/asset-group-tags/{tag_id}/selectors/{selector_id}").is_success
    ui.page.click("#selection-clear")
    expect(ui.page.locator("#selection-bar")).to_be_hidden()


def test_shift_click_picks_one_node(ui: UI) -> None:
    open_explore(ui)
    choose(ui, "node-search", "SMITH", "SMITH@ESC1.LOCAL")
    graph_stats(ui, "^1 nodes")
    ui.page.keyboard.down("Shift")
    try:
        click_graph_centre(ui)
    finally:
        ui.page.keyboard.up("Shift")
    expect(ui.page.locator("#selection-count")).to_have_text("1 selected")
    assert not ui.page.locator("#selection-owned").is_disabled()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_explore_extras_have_no_serious_accessibility_violation(ui: UI, theme: str) -> None:
    ui.page.evaluate(f"localStorage.setItem('houndgraph.theme', '{theme}')")
    open_explore(ui)
    choose(ui, "node-search", "JONES", JONES)
    section = ui.page.locator('.count-section[data-count="groupMembership"]')
    section.locator(".section-actions button", has_text="Cypher").click()
    ui.page.click("#select-all")
    ui.page.click("#tab-pathfinding")
    ui.page.click("#path-add-destination")
    assert serious_violations(ui.page) == []
    ui.goto("/ui/administration/database")
    ui.page.locator("#source-kinds label").first.wait_for()
    assert serious_violations(ui.page) == []


def test_the_database_page_clears_one_source_kind(ui: UI, database: Database) -> None:
    ui.goto("/ui/administration/database")
    # The people's file registered its source kind, HR, at ingest: it is listed, and clears the people alone.
    people = ui.page.locator('input[data-source-kind="HR"]')
    people.wait_for()
    assert ui.page.locator("#source-kinds label").all_inner_texts() == [
        "Active Directory data (Base)", "Azure data (AZBase)", "HR data", "Nodes of no source kind"]
    ui.page.check("#clear-deleteCollectedGraphData")
    assert people.is_disabled(), "all graph data or some source kinds, never both"
    ui.page.uncheck("#clear-deleteCollectedGraphData")
    people.check()
    ui.screenshot("admin-database-source-kinds")
    ui.page.click("#clear-database")
    ui.page.fill("#clear-confirm", "Please delete my data")
    ui.page.click("dialog.modal button:has-text('Delete')")
    ui.page.locator(".toast", has_text="Deletion requested").wait_for()
    deadline = time.monotonic() + 60
    with database.connect_raw(autocommit=True) as conn:
        while conn.execute("SELECT count(*) FROM node WHERE properties->>'name' = 'ALICE@HR'").fetchone()[0]:
            assert time.monotonic() < deadline, "the nodes of the HR source kind were not deleted"
            time.sleep(0.2)
        assert conn.execute("SELECT count(*) FROM node WHERE properties->>'name' = %s", (JONES,)).fetchone()[0] == 1
