"""Every pre-built search of the Cypher tab runs on the real labs: an answer, or "no results" (404), never an
error; the ADCS ones find what the ADCS lab holds."""

from __future__ import annotations

import json
from collections.abc import Iterator

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


def test_every_prebuilt_search_runs(labs: None, admin: httpx.Client) -> None:
    failures = []
    for group in PREBUILT:
        for query in group["queries"]:
            response = admin.post("/api/v2/graphs/cypher", json={"query": query["query"]})
            if response.status_code not in (200, 404):
                failures.append(f"{group['category']} / {query['name']}: {response.status_code} {response.text[:200]}")
    assert failures == []


def test_the_esc1_search_finds_jones(labs: None, admin: httpx.Client) -> None:
    adcs = next(group for group in PREBUILT if group["category"] == "Active Directory Certificate Services")
    esc1 = next(query for query in adcs["queries"] if query["name"].startswith("ESC1:"))
    data = admin.post("/api/v2/graphs/cypher", json={"query": esc1["query"]}).json()["data"]
    names = {node["label"] for node in data["nodes"].values()}
    assert {"JONES@ESC1.LOCAL", "ESC1.LOCAL"} <= names
