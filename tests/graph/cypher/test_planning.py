"""How a pattern is planned: where a variable-length walk starts (from the end its filters or the kind statistics
make selective, wherever they are written, or from the edges when neither end is filtered), a node that stands for
any node read from its edge, and the ends of a shortest-path search each listed once; with the same answers as the
plain plan. How expressions are planned is in test_planning_expressions.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from houndgraph.db import Database
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.statistics import KindStatistics
from houndgraph.graph.cypher.translate import patterns, shortest
from houndgraph.graph.cypher.translate.translator import translate
from tests.graph.cypher.test_queries import DA, IT, A, rows

KINDS = {"Base": 1, "User": 2, "Group": 3, "MemberOf": 4}
_SEED = re.compile(r"WITH RECURSIVE w\(node, edges, segment, depth\) AS \(SELECT (n\d+)\.id")


def _walk_seed_filters(query: str, key: str) -> bool:
    """Whether the recursive walk of `query` starts from the node its `key` property is filtered on."""
    sql = translate(parse(query), KINDS).sql
    seed = _SEED.search(sql)
    assert seed is not None, sql
    return f"({seed.group(1)}.properties->>'{key}')" in sql


@pytest.mark.parametrize(("query", "key"), [
    ("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-518' RETURN p", "objectid"),
    ("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE g.name IN ['A', 'B'] AND u.enabled RETURN u", "name"),
    ("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE u.name = 'ALICE@LAB.LOCAL' RETURN g", "name"),
    ("MATCH (g:Group)<-[:MemberOf*1..]-(u) WHERE 'X' = u.objectid RETURN g", "objectid"),
])
def test_a_walk_starts_from_the_end_the_where_clause_filters(query: str, key: str) -> None:
    assert _walk_seed_filters(query, key)


def test_a_comparison_between_two_nodes_filters_neither_end() -> None:
    # Nothing is known of either end: the walk starts on the left, as written.
    sql = translate(parse("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE g.name = u.name RETURN g"), KINDS).sql
    seed = _SEED.search(sql)
    assert seed is not None and seed.group(1) == "n1"


def test_walking_from_the_filtered_end_finds_every_trail(run: Any) -> None:
    from_right = run("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-512' "
                     "RETURN [n IN nodes(p) | n.name]")
    inline = run("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group {objectid: 'S-1-5-21-1-512'}) "
                 "RETURN [n IN nodes(p) | n.name]")
    expected = [([A, IT, DA],), ([DA, IT, DA],), ([IT, DA],)]
    assert sorted(rows(from_right)) == sorted(rows(inline)) == expected


# Kind statistics of a graph where groups are few, Tier Zero fewer, and ReadGMSAPassword edges rare.
STATS_KINDS = {**KINDS, "ReadGMSAPassword": 5, "Tag_Tier_Zero": 6, "Domain": 7, "Contains": 8, "AdminTo": 9}
STATS = KindStatistics(nodes=100_000, edges=1_000_000, node_kinds={1: 100_000, 2: 60_000, 3: 10_000, 6: 20, 7: 1},
                       edge_kinds={4: 300_000, 5: 3, 8: 100_000, 9: 40})


def _seed(query: str, stats: KindStatistics | None) -> str:
    seed = _SEED.search(translate(parse(query), STATS_KINDS, stats=stats).sql)
    assert seed is not None
    return seed.group(1)


@pytest.mark.parametrize(("query", "seed"), [
    # `g` stands on one of three ReadGMSAPassword edges; `m` is any node of the graph.
    ("MATCH p=(m)-[:MemberOf*1..]->(g)-[:ReadGMSAPassword]->() RETURN p", "n2"),
    # A label in the WHERE clause narrows an end as one in the pattern does.
    ("MATCH p=(s:Group)-[:MemberOf*1..]->(t:Group) WHERE (t:Tag_Tier_Zero) RETURN p", "n2"),
    ("MATCH p=(t:Group)<-[:MemberOf*1..]-(s:User) RETURN p", "n1"),
])
def test_without_filters_a_walk_starts_from_the_smaller_end_by_the_kind_statistics(query: str, seed: str) -> None:
    assert _seed(query, STATS) == seed
    assert _seed(query, None) == "n1"  # no statistics: the left end, as written


def test_a_filter_outranks_the_kind_statistics() -> None:
    # One domain, but Contains*1.. from it reaches the whole graph: the tagged end is the selective one.
    query = "MATCH p=(:Domain)-[:Contains*1..]->(n:Base) WHERE n.system_tags = 'admin_tier_0' RETURN p"
    assert _seed(query, STATS) == "n2"


def _rows(database: Database, query: str, stats: KindStatistics | None) -> list[tuple[Any, ...]]:
    with database.connect_raw() as conn:
        kinds = dict(conn.execute("SELECT name, id FROM kind").fetchall())
        if stats is not None:  # the ids of this database, the sizes of STATS
            names = {v: k for k, v in STATS_KINDS.items()}
            stats = KindStatistics(stats.nodes, stats.edges,
                                   {kinds[names[k]]: n for k, n in stats.node_kinds.items() if names[k] in kinds},
                                   {kinds[names[k]]: n for k, n in stats.edge_kinds.items() if names[k] in kinds})
        statement = translate(parse(query), kinds, stats=stats)
        return sorted(tuple(row) for row in conn.execute(statement.sql, statement.params).fetchall())


def test_walking_from_the_end_the_statistics_choose_finds_every_trail(empty_graph: Database,
                                                                      graph: dict[str, int]) -> None:
    query = "MATCH p=(m)-[:MemberOf*1..]->(g)-[:AdminTo]->(c) RETURN [n IN nodes(p) | n.name]"
    assert _seed(query, STATS) == "n2"
    from_right, from_left = _rows(empty_graph, query, STATS), _rows(empty_graph, query, None)
    assert from_right == from_left
    assert (["ALICE@LAB.LOCAL", IT, DA, "DC01.LAB.LOCAL"],) in from_right
    assert (["BOB@LAB.LOCAL", "HELPDESK@LAB.LOCAL", "WS01.LAB.LOCAL"],) in from_right


@pytest.mark.parametrize(("query", "seed"), [
    # No filter on either end: the walk starts only from nodes with an edge of its kind, found from the edges.
    ("MATCH p=(n)-[:MemberOf*1..]->(m) RETURN p", "n1.id IN (SELECT start_id FROM edge WHERE kind_id IN (4))"),
    ("MATCH p=(n:User)-[:MemberOf*2..3]->(m) RETURN p", "n1.id IN (SELECT start_id FROM edge WHERE kind_id IN (4))"),
    # Walked from the filtered right end, against the pattern's direction.
    ("MATCH p=(n)-[:MemberOf*1..]->(m {name: 'X'}) RETURN p", None),
    ("MATCH p=(n)<-[:MemberOf*1..]-(m) RETURN p", "n1.id IN (SELECT end_id FROM edge WHERE kind_id IN (4))"),
])
def test_a_walk_of_one_step_or_more_from_an_unfiltered_end_starts_from_the_edges(query: str, seed: str | None) -> None:
    sql = translate(parse(query), KINDS).sql
    if seed is None:
        assert "IN (SELECT start_id FROM edge" not in sql and "IN (SELECT end_id FROM edge" not in sql
    else:
        assert seed in sql


@pytest.mark.parametrize("query", [
    "MATCH p=(n)-[:MemberOf*0..]->(m) RETURN p",  # the walk of length 0 starts anywhere
    "MATCH p=(n)-[:MemberOf*1..]-(m) RETURN p",  # either direction
    "MATCH p=(n)-[*1..]->(m) RETURN p",  # any kind
    "MATCH p=(n)-[:MemberOf*1..]->(m) WHERE n.name = 'ALICE@LAB.LOCAL' RETURN p",  # a filtered start
])
def test_other_walks_start_from_their_nodes(query: str) -> None:
    sql = translate(parse(query), KINDS).sql
    assert "IN (SELECT start_id FROM edge" not in sql and "IN (SELECT end_id FROM edge" not in sql


@pytest.mark.parametrize("query", [
    "MATCH p=(n)-[:MemberOf*1..]->(m) RETURN [x IN nodes(p) | x.name]",
    "MATCH p=(n)<-[:MemberOf|AdminTo*1..2]-(m) RETURN [x IN nodes(p) | x.name]",
    "MATCH p=(n)-[:AdminTo*1..]->(m:Computer)-[:MemberOf]->(g) RETURN [x IN nodes(p) | x.name]",
    "MATCH p=(n)-[:GenericAll*1..]->(m) RETURN [x IN nodes(p) | x.name]",
    "MATCH p=(n)-[:NoSuchKind*1..]->(m) RETURN [x IN nodes(p) | x.name]",
])
def test_a_walk_started_from_the_edges_finds_the_trails_of_one_started_from_every_node(
        run: Any, monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    from_edges = sorted(rows(run(query)))
    monkeypatch.setattr(patterns, "seed_on_edges", lambda *args: None)
    assert from_edges == sorted(rows(run(query)))
    if "NoSuchKind" not in query:
        assert from_edges


@pytest.mark.parametrize(("query", "joined"), [
    # The member is read from the edge; only the group's row is joined.
    ("MATCH (g:Group)<-[:MemberOf]-(m) WITH g, count(m) AS members RETURN g.name, members", 1),
    ("MATCH (g:Group) WHERE NOT (g)<-[:MemberOf]-() RETURN g.name", 1),
    ("MATCH p=()-[:MemberOf]->()-[:AdminTo]->(c) RETURN p", 0),
    # Named for more than a count, labelled, or met twice (`m`, where `g` is read from the edges): joined.
    ("MATCH (g:Group)<-[:MemberOf]-(m) RETURN m.name", 2),
    ("MATCH (g:Group)<-[:MemberOf]-(m:User) RETURN count(m)", 2),
    ("MATCH (m)-[:MemberOf]->(g)-[:MemberOf]->(m) RETURN count(m)", 1),
])
def test_a_node_that_stands_for_any_node_is_read_from_its_edge(query: str, joined: int) -> None:
    assert translate(parse(query), KINDS).sql.count("CROSS JOIN node AS") == joined


@pytest.mark.parametrize("query", [
    "MATCH (g:Group)<-[:MemberOf]-(m) WITH g, count(m) AS members RETURN g.name, members",
    "MATCH (g:Group)<-[:MemberOf]-(m) RETURN g.name, count(DISTINCT m)",
    "MATCH (g:Group) WHERE NOT (g)-[:AdminTo]->() RETURN g.name",
    "MATCH p=()-[:MemberOf]->()-[:AdminTo]->(c) RETURN [x IN nodes(p) | x.name]",
    "MATCH (a)-[:MemberOf]-(b) RETURN a.name, count(b)",
    "MATCH (a)<-[:AdminTo]-()-[:MemberOf*1..]->(g) RETURN a.name, g.name",
    "MATCH (m)-[:MemberOf]->(g) WITH count(m) AS c MATCH (x)-[:AdminTo]->(y) RETURN c, count(y)",
    "MATCH (m)-[:MemberOf]->(g)-[:MemberOf]->(m) RETURN count(m)",
    "MATCH (u:User) OPTIONAL MATCH (u)-[:MemberOf]->(g) RETURN u.name, count(g)",
    "MATCH (n)-[r]->() RETURN type(r), count(*)",
])
def test_a_node_read_from_its_edge_gives_the_rows_of_a_joined_one(run: Any, monkeypatch: pytest.MonkeyPatch,
                                                                   query: str) -> None:
    read_from_edges = sorted(rows(run(query)), key=repr)
    monkeypatch.setattr(patterns, "edge_end_only", lambda *args: False)
    assert read_from_edges == sorted(rows(run(query)), key=repr)
    assert read_from_edges


def test_the_ends_of_a_search_alone_in_their_match_are_listed_without_distinct() -> None:
    # Each node comes once from its own pattern; after an earlier MATCH one node may come with many rows.
    (alone,) = shortest.requests(parse("MATCH p=shortestPath((n:User)-[:MemberOf*1..]->(g:Group)) RETURN p"), KINDS)
    assert "DISTINCT" not in translate(alone.sources, KINDS).sql
    (after,) = shortest.requests(parse("MATCH (u:User)-[:MemberOf]->(g:Group) "
                                       "MATCH p=shortestPath((n:User)-[:MemberOf*1..]->(g)) RETURN p"), KINDS)
    assert "SELECT DISTINCT" in translate(after.targets, KINDS).sql
    # `n` depends on no earlier row: one earlier row is enough, and each node comes once again.
    sources = translate(after.sources, KINDS).sql
    assert "DISTINCT" not in sources and re.search(r"LIMIT %\(p\d+\)s::bigint\) AS w\d+ CROSS JOIN node", sources)


def test_the_ends_after_an_earlier_match_give_each_shortest_path_once(run: Any) -> None:
    # IT has two members (alice, DOMAIN ADMINS): without DISTINCT, IT would be a target twice.
    result = run("MATCH (m)-[:MemberOf]->(g:Group) MATCH p=shortestPath((u:User)-[:MemberOf*1..]->(g)) "
                 "RETURN DISTINCT u.name, g.name, length(p)")
    assert sorted(rows(result)) == [("ALICE@LAB.LOCAL", "DOMAIN ADMINS@LAB.LOCAL", 2), ("ALICE@LAB.LOCAL", IT, 1),
                                    ("BOB@LAB.LOCAL", "HELPDESK@LAB.LOCAL", 1)]
