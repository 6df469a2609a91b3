"""Active Directory sites end to end: the site lab (tests/site_lab.py) uploaded as a collector zip over the
file-upload API, then its panels and lists, the GPO's sites and the data-quality counts, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from houndgraph.db import Database
from tests import site_lab as lab
from tests.conftest import ADMIN_PASSWORD, LiveServer, empty_graph_tables, login
from tests.factories import user_with_role
from tests.file_upload.helpers import end_job, start_job, upload, wait_for_job
from tests.openapi import assert_matches_own_document, assert_matches_spec

COMPLETE = 2


@pytest.fixture(scope="module")
def site_graph(live_server: LiveServer, database: Database) -> Iterator[Database]:
    """An empty graph, then the site lab uploaded and analysed as a user's collector zip would be."""
    with database.connect_raw(autocommit=True) as conn:
        empty_graph_tables(conn)
    with httpx.Client(base_url=live_server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        started = start_job(http)
        response = upload(http, started["id"], lab.archive(), "application/zip", "sites.zip")
        assert response.status_code == 202, response.text
        end_job(http, started["id"])
        finished = wait_for_job(http, started["id"])
        assert finished["status"] == COMPLETE, finished
        assert finished["failed_files"] == 0 and finished["completed_files"] == 8, finished
    yield database
    with database.connect_raw(autocommit=True) as conn:
        empty_graph_tables(conn)


def edges_of(conn: psycopg.Connection, kinds: tuple[str, ...]) -> set[tuple[str, str, str]]:
    rows = conn.execute(
        "SELECT s.properties->>'objectid', k.name, t.properties->>'objectid' FROM edge e "
        "JOIN kind k ON k.id = e.kind_id JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id "
        "WHERE k.name = ANY(%s)", (list(kinds),))
    return {(start, kind, end) for start, kind, end in rows}


def listed(client: httpx.Client, path: str, **params: Any) -> tuple[int, list[str]]:
    response = client.get(path, params={"limit": 100, **params})
    assert response.status_code == 200, response.text
    body = response.json()
    return body["count"], sorted(entry["objectID"] for entry in body["data"])


def test_the_uploaded_site_files_become_site_nodes_and_edges(site_graph: Database) -> None:
    with site_graph.connect_raw() as conn:
        kinds = dict(conn.execute(
            "SELECT n.properties->>'objectid', array_agg(k.name ORDER BY k.name) FROM node n "
            "JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name IN ('Site', 'SiteServer', 'SiteSubnet') "
            "GROUP BY 1").fetchall())
        assert kinds == {lab.HQ: ["Site"], lab.BRANCH: ["Site"], lab.HQ_SERVER: ["SiteServer"],
                         lab.BRANCH_SERVER: ["SiteServer"], **dict.fromkeys(lab.HQ_SUBNETS, ["SiteSubnet"]),
                         lab.BRANCH_SUBNET: ["SiteSubnet"]}
        assert edges_of(conn, ("ServerIs",)) == {(lab.HQ_SERVER, "ServerIs", lab.DC01),
                                                 (lab.BRANCH_SERVER, "ServerIs", lab.DC02)}
        assert edges_of(conn, ("GPLink",)) == {(lab.GPO_HQ, "GPLink", lab.HQ), (lab.GPO_ALL, "GPLink", lab.HQ),
                                               (lab.GPO_ALL, "GPLink", lab.BRANCH)}
        contained = {(start, end) for start, _, end in edges_of(conn, ("Contains",))}
        assert contained >= {(lab.HQ, lab.HQ_SERVER), (lab.BRANCH, lab.BRANCH_SERVER), (lab.BRANCH, lab.BRANCH_SUBNET),
                             *((lab.HQ, subnet) for subnet in lab.HQ_SUBNETS)}
        assert edges_of(conn, ("GenericAll", "WriteDacl")) >= {(lab.ALICE, "GenericAll", lab.HQ),
                                                               (lab.SITE_ADMINS, "WriteDacl", lab.HQ)}


def test_the_site_panel_counts_its_controllers_gpos_servers_and_subnets(admin: httpx.Client,
                                                                        site_graph: Database) -> None:
    response = admin.get(f"/api/v2/sites/{lab.HQ}")
    assert response.status_code == 200, response.text
    assert_matches_own_document(admin, response, "/api/v2/sites/{object_id}")
    data = response.json()["data"]
    # Controllers: Alice and the group directly, Bob as the group's member.
    assert {key: data[key] for key in ("controllers", "linkedgpos", "siteServers", "siteSubnets")} == {
        "controllers": 3, "linkedgpos": 2, "siteServers": 1, "siteSubnets": 2}
    assert data["props"]["name"] == "HQ@SITES.LOCAL" and data["props"]["objectid"] == lab.HQ
    assert {"Base", "Site"} <= set(data["kinds"])  # and Tag_Tier_Zero while the "Sites" rule is on

    branch = admin.get(f"/api/v2/sites/{lab.BRANCH}").json()["data"]
    assert (branch["controllers"], branch["linkedgpos"], branch["siteServers"], branch["siteSubnets"]) == (0, 1, 1, 1)

    bare = admin.get(f"/api/v2/sites/{lab.HQ}", params={"counts": "false"})
    assert bare.status_code == 200 and set(bare.json()["data"]) == {"props"}


def test_the_site_lists(admin: httpx.Client, site_graph: Database) -> None:
    base = f"/api/v2/sites/{lab.HQ}"
    assert listed(admin, f"{base}/controllers") == (3, sorted([lab.ALICE, lab.BOB, lab.SITE_ADMINS]))
    assert listed(admin, f"{base}/linked-gpos") == (2, sorted([lab.GPO_HQ, lab.GPO_ALL]))
    assert listed(admin, f"{base}/siteservers") == (1, [lab.HQ_SERVER])
    assert listed(admin, f"{base}/sitesubnets") == (2, sorted(lab.HQ_SUBNETS))
    for slug in ("controllers", "linked-gpos", "siteservers", "sitesubnets"):
        assert_matches_own_document(admin, admin.get(f"{base}/{slug}"), f"/api/v2/sites/{{object_id}}/{slug}")

    page = admin.get(f"{base}/sitesubnets", params={"skip": 1, "limit": 1, "sort_by": "name"}).json()
    assert (page["count"], page["skip"], page["limit"]) == (2, 1, 1)
    assert [entry["name"] for entry in page["data"]] == ["10.0.1.0/24@SITES.LOCAL"]
    assert page["data"][0]["label"] == "SiteSubnet"

    graph = admin.get(f"{base}/linked-gpos", params={"type": "graph"})
    assert graph.status_code == 200, graph.text
    assert_matches_own_document(admin, graph, "/api/v2/sites/{object_id}/linked-gpos")
    nodes = graph.json()
    assert {node["data"]["objectid"] for key, node in nodes.items() if not key.startswith("rel_")} == {
        lab.HQ, lab.GPO_HQ, lab.GPO_ALL}
    assert {edge["label"]["text"] for key, edge in nodes.items() if key.startswith("rel_")} == {"GPLink"}


def test_a_gpo_lists_the_sites_it_is_linked_to(admin: httpx.Client, site_graph: Database) -> None:
    panel = admin.get(f"/api/v2/gpos/{lab.GPO_ALL}")
    assert panel.status_code == 200, panel.text
    assert_matches_own_document(admin, panel, "/api/v2/gpos/{object_id}")
    assert panel.json()["data"]["sites"] == 2
    assert listed(admin, f"/api/v2/gpos/{lab.GPO_ALL}/sites") == (2, sorted([lab.HQ, lab.BRANCH]))
    assert listed(admin, f"/api/v2/gpos/{lab.GPO_HQ}/sites") == (1, [lab.HQ])
    assert_matches_own_document(admin, admin.get(f"/api/v2/gpos/{lab.GPO_HQ}/sites"), "/api/v2/gpos/{object_id}/sites")


def test_a_site_server_and_its_computer_name_each_other(admin: httpx.Client, site_graph: Database) -> None:
    response = admin.get(f"/api/v2/siteservers/{lab.HQ_SERVER}")
    assert response.status_code == 200, response.text
    assert_matches_own_document(admin, response, "/api/v2/siteservers/{object_id}")
    data = response.json()["data"]
    assert sorted(data) == ["kinds", "props"]
    assert data["props"]["serverreferencecomputer"] == lab.DC01
    assert data["props"]["serverreferencecomputername"] == "DC01.SITES.LOCAL"
    bare = admin.get(f"/api/v2/siteservers/{lab.HQ_SERVER}", params={"counts": "false"}).json()["data"]
    assert bare["props"]["serverreferencecomputer"] == lab.DC01

    computer = admin.get(f"/api/v2/computers/{lab.DC02}").json()["data"]["props"]
    assert (computer["siteservernode"], computer["siteservernodename"]) == (lab.BRANCH_SERVER, "DC02@SITES.LOCAL")
    workstation = admin.get(f"/api/v2/computers/{lab.WORKSTATION}").json()["data"]["props"]
    assert "siteservernode" not in workstation


def test_the_server_object_of_a_domain_controller_is_tier_zero(admin: httpx.Client, site_graph: Database) -> None:
    # The default rule "Domain Controller Site Servers" (SiteServer -ServerIs-> Computer -DCFor-> Domain).
    dc_server = admin.get(f"/api/v2/siteservers/{lab.HQ_SERVER}", params={"counts": "false"}).json()["data"]
    assert dc_server["props"].get("isTierZero") is True
    other = admin.get(f"/api/v2/siteservers/{lab.BRANCH_SERVER}", params={"counts": "false"}).json()["data"]
    assert "isTierZero" not in other["props"]


def test_a_site_subnet_panel(admin: httpx.Client, site_graph: Database) -> None:
    response = admin.get(f"/api/v2/sitesubnets/{lab.BRANCH_SUBNET}")
    assert response.status_code == 200, response.text
    assert_matches_own_document(admin, response, "/api/v2/sitesubnets/{object_id}")
    data = response.json()["data"]
    assert data["props"]["name"] == "10.1.0.0/24@SITES.LOCAL" and sorted(data["kinds"]) == ["Base", "SiteSubnet"]


def test_the_wrong_kind_or_an_unknown_id_is_not_found(admin: httpx.Client, site_graph: Database) -> None:
    for path in (f"/api/v2/sites/{lab.HQ_SERVER}", f"/api/v2/siteservers/{lab.HQ}", f"/api/v2/sitesubnets/{lab.DC01}",
                 "/api/v2/sites/NOPE/siteservers", f"/api/v2/sites/{lab.GPO_HQ}/linked-gpos"):
        response = admin.get(path)
        assert response.status_code == 404, path
        assert response.json()["errors"][0]["message"] == "node not found"
    response = admin.get(f"/api/v2/sites/{lab.HQ}/siteservers", params={"type": "tree"})
    assert response.status_code == 400


def test_reading_sites_needs_graph_read(admin: httpx.Client, site_graph: Database) -> None:
    _, headers = user_with_role(admin, "Upload-Only")
    for path in (f"/api/v2/sites/{lab.HQ}", f"/api/v2/siteservers/{lab.HQ_SERVER}",
                 f"/api/v2/sitesubnets/{lab.BRANCH_SUBNET}", f"/api/v2/gpos/{lab.GPO_HQ}/sites"):
        assert admin.get(path, headers=headers).status_code == 403, path
        assert httpx.get(f"{admin.base_url}{path}").status_code == 401, path


def test_data_quality_counts_the_sites(admin: httpx.Client, site_graph: Database) -> None:
    response = admin.get(f"/api/v2/ad-domains/{lab.SID}/data-quality-stats")
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/ad-domains/{domain_id}/data-quality-stats")
    latest = response.json()["data"][0]
    assert (latest["sites"], latest["siteservers"], latest["sitesubnets"]) == (2, 2, 3)
    aggregate = admin.get("/api/v2/platform/ad/data-quality-stats").json()["data"][0]
    assert (aggregate["sites"], aggregate["siteservers"], aggregate["sitesubnets"]) == (2, 2, 3)
