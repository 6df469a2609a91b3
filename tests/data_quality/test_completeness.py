"""Completeness figures and the data-quality snapshot an analysis run writes."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import psycopg
import pytest

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode, AZEdge, AZNode
from tests.analysis.graphs import Graph
from tests.openapi import assert_matches_spec

DAY = 24 * 3600
NEWEST = 1_700_000_000
SID = "S-1-5-21-5-6-7"
TENANT = "A0B1C2D3-0000-4000-8000-000000000001"
TABLES = ("ad_data_quality_stats, ad_data_quality_aggregations, azure_data_quality_stats, "
          "azure_data_quality_aggregations")


def build(graph: Graph) -> None:
    """Users: 4 active (newest logon and up to 14 days before it), 1 stale, 1 disabled, 1 without a logon.
    Two of the active users have a session. Windows computers: 3 active, 1 stale; one Linux computer.
    Two of the active Windows computers get a local-group edge from analysis (AdminTo on w1, CanRDP on w3)."""
    graph.node("D.LOCAL", ADNode.Domain, objectid=SID, domainsid=SID, collected=True)
    for name, enabled, seen in (("u1", True, NEWEST), ("u2", True, NEWEST - DAY), ("u3", True, NEWEST - 14 * DAY),
                                ("u4", True, NEWEST - 3 * DAY), ("stale", True, NEWEST - 15 * DAY),
                                ("off", False, NEWEST)):
        graph.node(name, ADNode.User, domainsid=SID, enabled=enabled, lastlogontimestamp=seen)
    graph.node("nologon", ADNode.User, domainsid=SID, enabled=True)
    for name, os, seen in (("w1", "Windows Server 2022", NEWEST), ("w2", "Windows 11 Pro", NEWEST - 2 * DAY),
                           ("w3", "WINDOWS 10", NEWEST - DAY), ("wstale", "Windows 10", NEWEST - 20 * DAY),
                           ("linux", "Ubuntu", NEWEST)):
        graph.node(name, ADNode.Computer, domainsid=SID, enabled=True, operatingsystem=os, lastlogontimestamp=seen)
    graph.node("G", ADNode.Group, domainsid=SID)
    graph.node("OU1", ADNode.OU, domainsid=SID)
    graph.edges(ADEdge.HasSession, [("w1", "u1"), ("w2", "u2"), ("w1", "stale")])
    graph.edges(ADEdge.MemberOf, [("u1", "G"), ("u2", "G")])
    graph.edge("G", ADEdge.GenericAll, "u3")
    graph.node("w1 Administrators", ADNode.LocalGroup, objectid="W1-S-1-5-32-544")
    graph.node("w3 Remote Desktop Users", ADNode.LocalGroup, objectid="W3-S-1-5-32-555")
    graph.edges(ADEdge.LocalToComputer, [("w1 Administrators", "w1"), ("w3 Remote Desktop Users", "w3")])
    graph.edges(ADEdge.MemberOfLocalGroup, [("u1", "w1 Administrators"), ("u2", "w3 Remote Desktop Users")])
    graph.edge("w3 Remote Desktop Users", ADEdge.RemoteInteractiveLogonRight, "w3")
    graph.node("T", AZNode.Tenant, objectid=TENANT, tenantid=TENANT)
    graph.node("azu", AZNode.User, objectid="AZU", tenantid=TENANT)
    graph.node("app", AZNode.App, objectid="APP", tenantid=TENANT)
    graph.edge("T", AZEdge.Contains, "azu")


@pytest.fixture
def committed_graph(empty_graph: Database) -> Iterator[Database]:
    """The graph above, analysed and committed (so the HTTP app sees it); emptied afterwards."""
    with empty_graph.connect_raw() as conn:
        conn.execute(f"TRUNCATE {TABLES}")
        graph = Graph(conn)
        build(graph)
        graph.load()
        conn.commit()
        run_analysis(conn)
        conn.commit()
    yield empty_graph
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node RESTART IDENTITY CASCADE; TRUNCATE {TABLES}")


def test_completeness_keys_are_not_swapped(committed_graph: Database, admin: httpx.Client) -> None:
    response = admin.get("/api/v2/completeness")
    assert response.status_code == 200
    assert_matches_spec(response, "/api/v2/completeness")
    # Sessions: 2 of the 4 active enabled users. Local groups: 2 of the 3 active Windows computers.
    assert response.json() == {"data": {"SessionCompleteness": 0.5, "LocalGroupCompleteness": 2 / 3}}


def test_completeness_of_an_empty_graph_is_zero(empty_graph: Database, admin: httpx.Client) -> None:
    response = admin.get("/api/v2/completeness")
    assert response.json() == {"data": {"LocalGroupCompleteness": 0.0, "SessionCompleteness": 0.0}}


def test_analysis_records_a_snapshot_per_domain_tenant_and_platform(committed_graph: Database) -> None:
    with committed_graph.connect_raw() as conn:
        ad = _rows(conn, "ad_data_quality_stats")
        (aggregate,) = _rows(conn, "ad_data_quality_aggregations")
        (tenant,) = _rows(conn, "azure_data_quality_stats")
        (azure,) = _rows(conn, "azure_data_quality_aggregations")
    (domain,) = ad
    assert len({row["run_id"] for row in (domain, aggregate, tenant, azure)}) == 1
    assert domain["created_at"] == aggregate["created_at"] == tenant["created_at"]
    # Groups: G and the four well-known groups analysis adds (Everyone, Authenticated Users, Domain
    # Users, Domain Computers), all carrying the domain's SID; local groups are not domain groups.
    assert domain["domain_sid"] == SID and domain["users"] == 7 and domain["computers"] == 5
    assert domain["groups"] == 1 + 4 and domain["ous"] == 1
    assert domain["sessions"] == 3 and domain["acls"] == 1
    assert domain["session_completeness"] == 0.5 and domain["local_group_completeness"] == pytest.approx(2 / 3)
    assert aggregate["domains"] == 1 and aggregate["users"] == 7
    assert tenant["tenant_id"] == TENANT and tenant["users"] == 1 and tenant["apps"] == 1
    assert tenant["relationships"] == 1 and azure["tenants"] == 1


def _rows(conn: psycopg.Connection, table: str) -> list[dict]:
    cursor = conn.execute(f"SELECT * FROM {table}")
    names = [column.name for column in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
