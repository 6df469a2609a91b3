"""GET /api/v2/search and GET /api/v2/available-domains over the labs; expectations from the files."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.labs import ADCS, TESTLAB, Lab, merged
from tests.openapi import assert_matches_spec

A, T = Lab(ADCS), Lab(TESTLAB)


def test_exact_match_comes_first_then_fuzzy_by_name(admin: httpx.Client, labs: Database) -> None:
    response = admin.get("/api/v2/search", params={"q": "domain admins@esc1.local", "limit": 50})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/search")
    data = response.json()["data"]
    assert data[0]["name"] == "DOMAIN ADMINS@ESC1.LOCAL" and data[0]["type"] == "Group"
    fuzzy = admin.get("/api/v2/search", params={"q": "admins", "type": "Group", "limit": 100}).json()["data"]
    expected = sorted(g["Properties"]["name"] for lab in (A, T) for g in lab.groups.values()
                      if "ADMINS" in (g["Properties"].get("name") or ""))
    assert [r["name"] for r in fuzzy] == expected
    assert all(r["type"] == "Group" for r in fuzzy)


def test_an_exact_name_comes_before_unnamed_nodes_whose_object_id_starts_with_it(admin: httpx.Client,
                                                                                 labs: Database) -> None:
    # The lab's well-known principals have no name and object ids such as "TESTLAB.LOCAL-S-1-5-32-544".
    found = admin.get("/api/v2/search", params={"q": "TESTLAB.LOCAL", "limit": 20}).json()["data"]
    assert any(r["objectid"].startswith("TESTLAB.LOCAL-") for r in found[1:])
    assert found[0]["name"] == "TESTLAB.LOCAL" and found[0]["type"] == "Domain"


def test_object_id_prefix_and_paging(admin: httpx.Client, labs: Database) -> None:
    prefix = "S-1-5-21-909015691-3030120388-2582151266-11"
    expected = sorted(u["Properties"]["name"] for oid, u in A.users.items() if oid.startswith(prefix))
    found = admin.get("/api/v2/search", params={"q": prefix, "type": "User", "limit": 100}).json()["data"]
    assert [r["name"] for r in found] == expected
    page = admin.get("/api/v2/search", params={"q": prefix, "type": "User", "skip": 1, "limit": 2}).json()["data"]
    assert [r["name"] for r in page] == expected[1:3]


def test_search_errors(admin: httpx.Client, labs: Database) -> None:
    missing = admin.get("/api/v2/search")
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["message"] == "missing required query parameter: q"
    bad_type = admin.get("/api/v2/search", params={"q": "x", "type": "Spaceship"})
    assert bad_type.status_code == 400
    assert bad_type.json()["errors"][0]["message"] == \
        "there are errors in the query parameters: unknown node type: Spaceship"
    assert admin.get("/api/v2/search", params={"q": "x", "skip": "-2"}).status_code == 400


def test_available_domains(admin: httpx.Client, labs: Database) -> None:
    domains = {oid: d["Properties"] for lab in (ADCS, TESTLAB) for oid, d in merged(lab, "domains").items()
               if d["Properties"].get("name")}
    # Domains met only as trust partners are in the graph too, not collected.
    trusted = {t["TargetDomainSid"].upper(): t["TargetDomainName"] for lab in (ADCS, TESTLAB)
               for d in merged(lab, "domains").values() for t in d.get("Trusts") or []}
    response = admin.get("/api/v2/available-domains")
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/available-domains")
    data = response.json()["data"]
    assert {(d["id"], d["name"], d["collected"]) for d in data} == {
        *((oid, p["name"], True) for oid, p in domains.items()),
        *((oid, name, False) for oid, name in trusted.items() if oid not in domains)}
    assert {d["type"] for d in data} == {"active-directory"}
    assert [d["name"] for d in data] == sorted(d["name"] for d in data)
    by_id = admin.get("/api/v2/available-domains", params={"sort_by": "-objectid"}).json()["data"]
    assert [d["id"] for d in by_id] == sorted({*domains, *trusted}, reverse=True)
    one = admin.get("/api/v2/available-domains", params={"name": "eq:ESC1.LOCAL"}).json()["data"]
    assert [d["name"] for d in one] == ["ESC1.LOCAL"]
    bad = admin.get("/api/v2/available-domains", params={"color": "eq:red"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["message"] == "the specified column cannot be filtered: color"


def test_graph_search_answers_the_legacy_node_map(admin: httpx.Client, labs: Database) -> None:
    response = admin.get("/api/v2/graph-search", params={"query": "domain admins@esc1"})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/graph-search")
    nodes = response.json()["data"]
    assert "DOMAIN ADMINS@ESC1.LOCAL" in {n["label"]["text"] for n in nodes.values()}
    exact = admin.get("/api/v2/graph-search", params={"query": "domain admins@esc1", "type": "exact"}).json()["data"]
    assert exact == {}
    exact = admin.get("/api/v2/graph-search", params={"query": "DOMAIN ADMINS@ESC1.LOCAL", "type": "exact"})
    assert [n["label"]["text"] for n in exact.json()["data"].values()] == ["DOMAIN ADMINS@ESC1.LOCAL"]
    assert admin.get("/api/v2/graph-search").status_code == 400
    assert admin.get("/api/v2/graph-search", params={"query": "x", "type": "psychic"}).status_code == 400
