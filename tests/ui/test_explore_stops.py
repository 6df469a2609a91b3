"""Path finding through up to three ordered destinations on the Explore page, as BloodHound's own UI does it:
one shortest-path request per consecutive pair (the API has no route taking more nodes), the legs merged on
screen. Each drawn graph is checked against the shortest-path route's own answers for the same legs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from houndgraph.db import Database
from tests.labs import clear, load_labs
from tests.ui.browser import UI, choose, click_graph_centre, drawn_graph, graph_stats, open_explore

JONES = "JONES@ESC1.LOCAL"
DOMAIN = "ESC1.LOCAL"
DC = "ESC1-DC.ESC1.LOCAL"
OTHER_LAB = "TESTLAB.LOCAL"


@pytest.fixture(scope="module", autouse=True)
def labs(database: Database) -> Iterator[None]:
    load_labs(database)
    yield
    clear(database)


def object_id(admin: httpx.Client, name: str) -> str:
    hits = admin.get("/api/v2/search", params={"q": name}).json()["data"]
    return next(hit["objectid"] for hit in hits if hit["name"] == name)


def leg_edges(admin: httpx.Client, start: str, end: str) -> set[tuple[str, str, str]]:
    """The shortest-path route's answer for one leg, as (source name, kind, target name)."""
    answer = admin.get("/api/v2/graphs/shortest-path",
                       params={"start_node": object_id(admin, start), "end_node": object_id(admin, end)})
    assert answer.status_code == 200, answer.text
    data = answer.json()["data"]
    names = {key: node["label"] for key, node in data["nodes"].items()}
    return {(names[e["source"]], e["kind"], names[e["target"]]) for e in data["edges"]}


def drawn_edges(graph: dict[str, Any]) -> set[tuple[str, str, str]]:
    names = {node["id"]: node["label"] for node in graph["nodes"]}
    return {(names[e["source"]], e["kind"], names[e["target"]]) for e in graph["edges"]}


def wait_for_search(ui: UI, action: Any) -> None:
    """Runs `action` and waits for the path search it starts to finish."""
    ui.page.evaluate("() => { document.querySelector('#path-status').dataset.state = 'edited' }")
    action()
    ui.page.locator('#path-status[data-state="done"]').wait_for(state="attached")


def test_a_path_through_two_destinations_draws_both_legs(ui: UI, admin: httpx.Client) -> None:
    open_explore(ui, "pathfinding")
    choose(ui, "path-start", "JONES", JONES)
    choose(ui, "path-end", "ESC1.LOCAL", DOMAIN)
    graph_stats(ui, "[1-9][0-9]* edges")
    ui.page.click("#path-add-destination")
    expect(ui.page.locator("#path-end-2")).to_be_focused()
    wait_for_search(ui, lambda: choose(ui, "path-end-2", "ESC1-DC", DC))
    expected = leg_edges(admin, JONES, DOMAIN) | leg_edges(admin, DOMAIN, DC)
    assert leg_edges(admin, DOMAIN, DC), "the domain reaches its controller"
    assert drawn_edges(drawn_graph(ui)) == expected
    assert ui.page.locator("#path-status").inner_text() == ""
    ui.screenshot("explore-path-stops")


def test_reordering_the_destinations_searches_the_new_order(ui: UI, admin: httpx.Client) -> None:
    wait_for_search(ui, lambda: ui.page.click("button[aria-label='Move destination 2 up']"))
    assert ui.page.locator("#path-end").input_value() == DC
    assert ui.page.locator("#path-end-2").input_value() == DOMAIN
    legs = [leg_edges(admin, JONES, DC), leg_edges(admin, DC, DOMAIN)]
    assert drawn_edges(drawn_graph(ui)) == legs[0] | legs[1]
    wait_for_search(ui, lambda: ui.page.click("button[aria-label='Move destination 1 down']"))
    assert ui.page.locator("#path-end").input_value() == DOMAIN


def test_a_leg_without_a_path_is_named_and_the_others_drawn(ui: UI, admin: httpx.Client) -> None:
    ui.page.click("#path-add-destination")
    wait_for_search(ui, lambda: choose(ui, "path-end-3", "TESTLAB.LOCAL", OTHER_LAB))
    assert ui.page.locator("#path-add-destination").is_disabled(), "three destinations at most"
    assert ui.page.locator("#path-status").inner_text() == f"No path from {DC} to {OTHER_LAB}."
    assert drawn_edges(drawn_graph(ui)) == leg_edges(admin, JONES, DOMAIN) | leg_edges(admin, DOMAIN, DC)
    ui.screenshot("explore-path-stops-missing-leg")


def test_removing_destinations_goes_back_to_one_path(ui: UI, admin: httpx.Client) -> None:
    wait_for_search(ui, lambda: ui.page.click("button[aria-label='Remove destination 3']"))
    assert not ui.page.locator("#path-add-destination").is_disabled()
    wait_for_search(ui, lambda: ui.page.click("button[aria-label='Remove destination 2']"))
    assert ui.page.locator("button[aria-label^='Remove destination']").count() == 0
    assert drawn_edges(drawn_graph(ui)) == leg_edges(admin, JONES, DOMAIN)


def test_the_context_menu_adds_a_node_as_a_destination(ui: UI, admin: httpx.Client) -> None:
    ui.page.click("#tab-search")  # the same page: the path tab keeps its stops
    choose(ui, "node-search", "ESC1-DC", DC)
    graph_stats(ui, "^1 nodes")
    click_graph_centre(ui, "right")
    menu = ui.page.locator("#context-menu")
    wait_for_search(ui, lambda: menu.locator("button", has_text="Add as destination").click())
    assert ui.page.locator("#path-end").input_value() == DOMAIN
    assert ui.page.locator("#path-end-2").input_value() == DC
    assert drawn_edges(drawn_graph(ui)) == leg_edges(admin, JONES, DOMAIN) | leg_edges(admin, DOMAIN, DC)
