"""The data-quality snapshot of a run over several domains: each domain's figures from its own nodes."""

from __future__ import annotations

from typing import Any

from houndgraph.analysis import run_analysis
from houndgraph.analysis.completeness import local_group_query, session_query
from houndgraph.analysis.context import Context
from houndgraph.graph.kinds import AD_ACL_EDGES, ADEdge, ADNode
from tests.analysis.graphs import SEEN, Graph

DAY = 24 * 3600
NEWEST = 1_700_000_000
DOMAIN_A = "S-1-5-21-10-10-10"
DOMAIN_B = "S-1-5-21-20-20-20"


def build(graph: Graph) -> None:
    """A's newest logon is the graph's; B's users logged on a month earlier, so none of them is active in the
    graph's 14 days, but three are in their domain's. One user has no domain: it counts for the graph only."""
    graph.domain("A", DOMAIN_A)
    graph.domain("B", DOMAIN_B)
    graph.node("pc", ADNode.Computer, domainsid=DOMAIN_A)
    users = (("a1", DOMAIN_A, 0, True), ("a2", DOMAIN_A, 5, False), ("a3", DOMAIN_A, 20, True),
             ("b1", DOMAIN_B, 30, True), ("b2", DOMAIN_B, 31, False), ("b3", DOMAIN_B, 40, True),
             ("b4", DOMAIN_B, 50, True), ("x", None, 1, True))
    for name, sid, days, session in users:
        properties: dict[str, Any] = {"enabled": True, "lastlogontimestamp": NEWEST - days * DAY}
        if sid is not None:
            properties["domainsid"] = sid
        graph.node(name, ADNode.User, **properties)
        if session:
            graph.edge("pc", ADEdge.HasSession, name)
    graph.node("w1", ADNode.Computer, domainsid=DOMAIN_B, enabled=True, operatingsystem="Windows 11",
               lastlogontimestamp=NEWEST - 30 * DAY)
    graph.node("w1 Administrators", ADNode.LocalGroup, objectid="W1-S-1-5-32-544")
    graph.edge("w1 Administrators", ADEdge.LocalToComputer, "w1")
    graph.edge("b1", ADEdge.MemberOfLocalGroup, "w1 Administrators")


def test_each_domain_counts_its_own_active_principals_within_its_newest_logon(graph: Graph) -> None:
    build(graph)
    graph.load()
    report = run_analysis(graph.conn)
    rows = {sid: (sessions, local_groups, users) for sid, sessions, local_groups, users in graph.conn.execute(
        "SELECT domain_sid, session_completeness, local_group_completeness, users FROM ad_data_quality_stats "
        "WHERE run_id = %s", (report.data_quality_run_id,))}
    # A: a1 and a2 active (a3 is 20 days older than a1), one with a session. B: b1, b2, b3 active within 14 days
    # of b1, two with a session; w1 is B's only active Windows computer and has AdminTo.
    assert rows == {DOMAIN_A: (0.5, 0.0, 3), DOMAIN_B: (2 / 3, 1.0, 4)}
    aggregate = graph.conn.execute(
        "SELECT session_completeness, local_group_completeness, users FROM ad_data_quality_aggregations "
        "WHERE run_id = %s", (report.data_quality_run_id,)).fetchone()
    # The graph: a1, a2 and x within 14 days of a1, two with a session; w1 is the graph's newest computer.
    assert aggregate == (2 / 3, 1.0, 7)
    # The completeness endpoint's statement reads the graph's figure first.
    kinds = dict(graph.conn.execute("SELECT name, id FROM kind").fetchall()).get
    for query, figure in ((session_query(kinds), 2 / 3), (local_group_query(kinds), 1.0)):
        covered, counted = graph.conn.execute(*query).fetchone()[1:]  # type: ignore[index]
        assert covered / counted == figure


def test_each_domain_counts_the_edges_starting_at_its_own_nodes(graph: Graph) -> None:
    # Two domains listed in an order other than their SIDs', each with users, computers, sessions and ACL edges,
    # and a session whose start is a user (not counted as a session). The counts are checked against the edge
    # table read whole and counted here.
    for sid, tag, size in ((DOMAIN_B, "b", 3), (DOMAIN_A, "a", 5)):
        graph.domain(tag, sid)
        for i in range(size):
            graph.node(f"{tag}u{i}", ADNode.User, domainsid=sid, enabled=True)
            graph.node(f"{tag}c{i}", ADNode.Computer, domainsid=sid, enabled=True)
        for i in range(size):
            graph.edge(f"{tag}c{i}", ADEdge.HasSession, f"{tag}u{i}")
            graph.edge(f"{tag}u{i}", ADEdge.GenericAll, f"{tag}c{(i + 1) % size}")
        graph.edge(f"{tag}u0", ADEdge.HasSession, f"{tag}u1")
        graph.edge(f"{tag}u1", ADEdge.MemberOf, tag)
    graph.edge("au0", ADEdge.WriteDacl, "bc0")
    graph.load()
    report = run_analysis(graph.conn)
    stats = {row[0]: row[1:] for row in graph.conn.execute(
        "SELECT domain_sid, relationships, acls, sessions, users, computers FROM ad_data_quality_stats "
        "WHERE run_id = %s", (report.data_quality_run_id,))}
    edges = graph.conn.execute("""
        SELECT s.properties->>'domainsid', k.name, array(SELECT name FROM kind WHERE id = ANY(s.kind_ids))
        FROM edge e JOIN node s ON s.id = e.start_id JOIN kind k ON k.id = e.kind_id""").fetchall()
    acls = {kind.value for kind in AD_ACL_EDGES}
    for sid, size in ((DOMAIN_A, 5), (DOMAIN_B, 3)):
        mine = [kind for owner, kind, kinds in edges if owner == sid and ADNode.Base in kinds]
        relationships, acl_count, sessions, users, computers = stats[sid]
        assert relationships == len(mine) > 3 * size
        assert acl_count == sum(1 for kind in mine if kind in acls) == size + (sid == DOMAIN_A)
        assert (sessions, users, computers) == (size, size, size)


def test_work_mem_is_raised_for_the_statements_inside_only(graph: Graph) -> None:
    context = Context(graph.conn, SEEN)

    def work_mem() -> str:
        return str(graph.conn.execute("SHOW work_mem").fetchone()[0])  # type: ignore[index]

    graph.conn.execute("SET LOCAL work_mem = '4MB'")
    with context.work_mem("64MB"):
        assert work_mem() == "64MB"
    assert work_mem() == "4MB"
    graph.conn.execute("SET LOCAL work_mem = '128MB'")
    with context.work_mem("64MB"):
        assert work_mem() == "128MB"  # never lowered
    assert work_mem() == "128MB"
