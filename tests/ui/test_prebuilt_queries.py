"""Every pre-built search of the Cypher tab runs on the real labs: an answer, or "no results" (404), never an
error; the ADCS ones find what the ADCS lab holds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from tests.labs import clear, load_labs
from tests.ui.test_bundle import WEB

PREBUILT = json.loads((WEB / "src" / "data" / "prebuilt.json").read_text())


@pytest.fixture(scope="module")
def labs(database: Database) -> Iterator[None]:
    load_labs(database)
    yield
    clear(database)


# Beside the pre-built searches: answers whose literals print whole nodes, edges and paths.
PRINTING_ENTITIES = ["MATCH (u:User) RETURN collect(u) AS users, count(u) AS n",
                     "MATCH p=(:User)-[:MemberOf]->(g:Group) RETURN p, [g] AS groups LIMIT 5"]


def without_properties(data: dict[str, Any]) -> dict[str, Any]:
    shown = {key: value for key, value in data.items() if key not in ("node_keys", "edge_keys")}
    shown["nodes"] = {key: {k: v for k, v in node.items() if k != "properties"} for key, node in data["nodes"].items()}
    shown["edges"] = [{k: v for k, v in edge.items() if k != "properties"} for edge in data["edges"]]
    return shown


def test_every_prebuilt_search_runs_and_shows_what_it_shows_with_properties(labs: None, admin: httpx.Client) -> None:
    # A graph answer without properties reads only the few a node or edge shows (graph_shapes.SHOWN_NODE_KEYS):
    # apart from the properties, it is the answer with them.
    failures = []
    queries = [(f"{group['category']} / {query['name']}", query["query"]) for group in PREBUILT
               for query in group["queries"]]
    for name, query in [*queries, *((text, text) for text in PRINTING_ENTITIES)]:
        response = admin.post("/api/v2/graphs/cypher", json={"query": query})
        if response.status_code not in (200, 404):
            failures.append(f"{name}: {response.status_code} {response.text[:200]}")
            continue
        whole = admin.post("/api/v2/graphs/cypher", json={"query": query, "include_properties": True})
        assert whole.status_code == response.status_code, name
        if response.status_code == 200:
            found, expected = response.json()["data"], whole.json()["data"]
            for key, node in expected["nodes"].items():
                if "lastseen" in node["properties"]:
                    assert found["nodes"][key]["lastSeen"] == node["lastSeen"], name
            # Entities without lastseen show the time of the answer: taken out of both.
            found, expected = (json.loads(re.sub(r'"lastSeen":"[^"]*"', '"lastSeen":""', json.dumps(data,
                               separators=(",", ":")))) for data in (found, expected))
            assert found == without_properties(expected), name
    assert failures == []


def test_the_esc1_search_finds_jones(labs: None, admin: httpx.Client) -> None:
    adcs = next(group for group in PREBUILT if group["category"] == "Active Directory Certificate Services")
    esc1 = next(query for query in adcs["queries"] if query["name"].startswith("ESC1:"))
    data = admin.post("/api/v2/graphs/cypher", json={"query": esc1["query"]}).json()["data"]
    names = {node["label"] for node in data["nodes"].values()}
    assert {"JONES@ESC1.LOCAL", "ESC1.LOCAL"} <= names
