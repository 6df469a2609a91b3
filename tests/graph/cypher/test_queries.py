"""Each supported construct, run over the small graph of conftest.py; expected answers worked out by
hand from the drawing there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from houndgraph.graph.cypher.execute import Result

A, B, C = "ALICE@LAB.LOCAL", "BOB@LAB.LOCAL", "CAROL@LAB.LOCAL"
DA, IT, HD, DCS = "DOMAIN ADMINS@LAB.LOCAL", "IT@LAB.LOCAL", "HELPDESK@LAB.LOCAL", "DOMAIN CONTROLLERS@LAB.LOCAL"
DC, WS = "DC01.LAB.LOCAL", "WS01.LAB.LOCAL"


def rows(result: Result) -> list[tuple[Any, ...]]:
    return [tuple(_plain(v) for v in row) for row in result.rows]


def _plain(value: Any) -> Any:
    # jsonb numbers arrive as int/float/Decimal; compare as JSON would print them.
    return json.loads(json.dumps(value, default=float))


CASES: list[tuple[str, str, list[tuple[Any, ...]]]] = [
    ("inline property map", "MATCH (u:User {hasspn: true}) WHERE u.enabled = true RETURN u.name", [(A,)]),
    ("boolean property in WHERE", "MATCH (u:User) WHERE u.dontreqpreauth RETURN u.name", [(B,)]),
    ("NOT / IS NULL", "MATCH (u:User) WHERE u.dontreqpreauth IS NULL AND NOT u.enabled RETURN u.name", [(C,)]),
    ("IS NOT NULL", "MATCH (u:User) WHERE u.admincount IS NOT NULL RETURN u.name", [(A,)]),
    ("OR and label predicate", "MATCH (n) WHERE n:Computer OR n:Domain RETURN n.name ORDER BY n.name",
     [(DC,), ("LAB.LOCAL",), (WS,)]),
    ("label disjunction", "MATCH (n) WHERE n:Computer|Domain RETURN count(n)", [(3,)]),
    ("XOR", "MATCH (u:User) WHERE u.enabled XOR u.hasspn RETURN u.name ORDER BY u.name", [(C,)]),
    ("STARTS WITH", "MATCH (g:Group) WHERE g.name STARTS WITH 'DOMAIN' RETURN g.name ORDER BY g.name",
     [(DA,), (DCS,)]),
    ("ENDS WITH on objectid", "MATCH (g:Group) WHERE g.objectid ENDS WITH '-512' RETURN g.name", [(DA,)]),
    ("ENDS WITH on objectid, a longer suffix", "MATCH (n) WHERE n.objectid ENDS WITH '1-110' + '4' RETURN n.name",
     [(WS,)]),
    ("ENDS WITH on objectid takes _ and % literally",
     "MATCH (n) WHERE n.objectid ENDS WITH '_512' OR n.objectid ENDS WITH '%12' RETURN n.name", []),
    ("ENDS WITH on objectid, the whole id", "MATCH (n) WHERE n.objectid ENDS WITH 'S-1-5-21-1' RETURN n.name",
     [("LAB.LOCAL",)]),
    ("CONTAINS", "MATCH (c:Computer) WHERE c.operatingsystem CONTAINS 'Server' RETURN c.name", [(DC,)]),
    ("regex with (?i)", "MATCH (n) WHERE n.name =~ '(?i)dc0.*' RETURN n.name", [(DC,)]),
    ("regex is a whole-string match", "MATCH (n) WHERE n.name =~ 'DC0' RETURN n.name", []),
    ("IN a literal list", "MATCH (g:Group) WHERE g.name IN ['IT@LAB.LOCAL', 'NOPE'] RETURN g.name", [(IT,)]),
    ("comparison on numbers", "MATCH (u:User) WHERE u.pwdlastset >= 1650000000 RETURN u.name", [(B,)]),
    ("comparison across types is null", "MATCH (u:User) WHERE u.name > 5 RETURN u.name", []),
    ("one hop", "MATCH (g:Group)-[:AdminTo]->(c:Computer) RETURN g.name, c.name ORDER BY g.name",
     [(DA, DC), (HD, WS)]),
    ("incoming direction", "MATCH (c:Computer {name: 'WS01.LAB.LOCAL'})<-[:AdminTo]-(g) RETURN g.name", [(HD,)]),
    ("type alternation", "MATCH (:Computer {name: 'WS01.LAB.LOCAL'})<-[:AdminTo|HasSession]-(x) RETURN x.name",
     [(HD,)]),
    ("undirected", "MATCH ({name: 'WS01.LAB.LOCAL'})-[r]-(m) RETURN count(r)", [(3,)]),
    ("type() and relationship properties",
     "MATCH (:User {name: 'CAROL@LAB.LOCAL'})-[r]->() RETURN type(r), r.isacl", [("GenericAll", True)]),
    ("variable length keeps every trail", "MATCH (:User {name: 'ALICE@LAB.LOCAL'})-[:MemberOf*1..]->(g) "
     "RETURN g.name ORDER BY g.name", [(DA,), (IT,), (IT,)]),
    ("variable length DISTINCT", "MATCH (:User {name: 'ALICE@LAB.LOCAL'})-[:MemberOf*1..]->(g:Group) "
     "RETURN DISTINCT g.name ORDER BY g.name", [(DA,), (IT,)]),
    ("variable length bounded", "MATCH (:User {name: 'ALICE@LAB.LOCAL'})-[:MemberOf*..1]->(g) RETURN g.name",
     [(IT,)]),
    ("variable length exact", "MATCH (:User {name: 'BOB@LAB.LOCAL'})-[*2]->(x) RETURN x.name", [(WS,)]),
    ("variable length range", "MATCH (:User {name: 'BOB@LAB.LOCAL'})-[*2..3]->(x) RETURN x.name ORDER BY x.name",
     [(A,), (B,), (WS,)]),
    ("variable length zero", "MATCH (u:User {name: 'BOB@LAB.LOCAL'})-[:MemberOf*0..1]->(x) RETURN x.name "
     "ORDER BY x.name", [(B,), (HD,)]),
    ("variable length from the selective end", "MATCH (u:User)-[:MemberOf*1..]->(g:Group {objectid: "
     "'S-1-5-21-1-512'}) RETURN DISTINCT u.name", [(A,)]),
    ("path length and nodes", "MATCH p = (:User {name: 'BOB@LAB.LOCAL'})-[:MemberOf|AdminTo*2]->(c) "
     "RETURN length(p), [n IN nodes(p) | n.name]", [(2, [B, HD, WS])]),
    ("relationships(p)", "MATCH p = (:User {name: 'BOB@LAB.LOCAL'})-[:MemberOf]->()-[:AdminTo]->() "
     "RETURN [r IN relationships(p) | type(r)]", [(["MemberOf", "AdminTo"],)]),
    ("relationship uniqueness", "MATCH (a:Group {name: 'IT@LAB.LOCAL'})-[r1:MemberOf]->(b)-[r2:MemberOf]->(c) "
     "RETURN c.name", [(IT,)]),
    ("several patterns", "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}), (c:Computer {name: 'DC01.LAB.LOCAL'}) "
     "RETURN u.name, c.name", [(A, DC)]),
    ("shortestPath", "MATCH p = shortestPath((u:User {name: 'ALICE@LAB.LOCAL'})-[*1..]->(c:Computer "
     "{name: 'DC01.LAB.LOCAL'})) RETURN length(p)", [(3,)]),
    ("shortestPath many sources one target", "MATCH p = shortestPath((u:User)-[:MemberOf|AdminTo|HasSession|"
     "GenericAll*1..]->(g:Group)) WHERE g.objectid ENDS WITH '-512' RETURN u.name, length(p) ORDER BY u.name",
     [(A, 2), (B, 5), (C, 6)]),
    ("shortestPath with a bound end", "MATCH (g:Group {name: 'DOMAIN ADMINS@LAB.LOCAL'}) MATCH p = shortestPath("
     "(u:User {name: 'BOB@LAB.LOCAL'})-[*1..]->(g)) RETURN [n IN nodes(p) | n.name]", [([B, HD, WS, A, IT, DA],)]),
    ("shortestPath with a bound", "MATCH p = shortestPath((u:User {name: 'BOB@LAB.LOCAL'})-[*1..3]->"
     "(g:Group {name: 'DOMAIN ADMINS@LAB.LOCAL'})) RETURN p", []),
    ("shortestPath where no path", "MATCH p = shortestPath((c:Computer {name: 'DC01.LAB.LOCAL'})-[*1..]->"
     "(u:User)) RETURN p", []),
    ("OPTIONAL MATCH keeps the row", "MATCH (u:User) OPTIONAL MATCH (u)-[:AdminTo]->(c) "
     "RETURN u.name, count(c) ORDER BY u.name", [(A, 0), (B, 0), (C, 0)]),
    ("OPTIONAL MATCH binds", "MATCH (c:Computer) OPTIONAL MATCH (c)<-[:HasSession]-(x) OPTIONAL MATCH "
     "(c)-[:HasSession]->(u) RETURN c.name, count(DISTINCT u) ORDER BY c.name", [(DC, 0), (WS, 2)]),
    ("WITH aggregation and WHERE", "MATCH (c:Computer)-[:HasSession]->(u:User) WITH c, count(u) AS sessions "
     "WHERE sessions > 1 RETURN c.name, sessions", [(WS, 2)]),
    ("WITH ORDER BY LIMIT", "MATCH (n:Group) WITH n ORDER BY n.name DESC LIMIT 1 RETURN n.name", [(IT,)]),
    ("ORDER BY SKIP LIMIT", "MATCH (n:Group) RETURN n.name ORDER BY n.name SKIP 1 LIMIT 2", [(DCS,), (HD,)]),
    ("count, collect, min, max, sum, avg", "UNWIND [3, 1, 2] AS x RETURN count(x), collect(x), min(x), max(x), "
     "sum(x), avg(x)", [(3, [3, 1, 2], 1, 3, 6, 2.0)]),
    ("collect DISTINCT and size", "MATCH (c:Computer)-[:HasSession]->(u:User) RETURN c.name, "
     "size(collect(DISTINCT u.name))", [(WS, 2)]),
    ("UNWIND a collected list", "MATCH (u:User) WITH collect(u) AS users UNWIND users AS u RETURN count(u)",
     [(3,)]),
    ("UNION", "MATCH (n:User) RETURN n.name AS name UNION MATCH (n:Computer) RETURN n.name AS name "
     "UNION MATCH (n:User) RETURN n.name AS name", None),
    ("UNION ALL", "MATCH (n:User) RETURN n.name AS name UNION ALL MATCH (n:User) RETURN n.name AS name", None),
    ("CALL subquery", "CALL { MATCH (n:User) RETURN n UNION MATCH (n:Group) RETURN n } RETURN count(n)", [(7,)]),
    ("correlated CALL subquery", "MATCH (c:Computer) CALL { WITH c MATCH (c)-[:HasSession]->(u) "
     "RETURN count(u) AS n } RETURN c.name, n ORDER BY c.name", [(DC, 0), (WS, 2)]),
    ("EXISTS subquery", "MATCH (c:Computer) WHERE EXISTS { MATCH (c)<-[:AdminTo]-(:Group) } "
     "RETURN c.name ORDER BY c.name", [(DC,), (WS,)]),
    ("COUNT subquery", "MATCH (c:Computer) RETURN c.name, COUNT { (c)-[:HasSession]->() } ORDER BY c.name",
     [(DC, 0), (WS, 2)]),
    ("pattern predicate", "MATCH (u:User) WHERE NOT (u)-[:MemberOf]->() RETURN u.name", [(C,)]),
    ("pattern comprehension", "MATCH (c:Computer {name: 'WS01.LAB.LOCAL'}) "
     "RETURN size([(c)-[:HasSession]->(u) | u.name])", [(2,)]),
    ("list comprehension with filter", "RETURN [x IN [1, 2, 3, 4] WHERE x % 2 = 0 | x * 10]", [([20, 40],)]),
    ("quantifiers", "RETURN any(x IN [1, 2] WHERE x > 1), all(x IN [1, 2] WHERE x > 1), "
     "none(x IN [1, 2] WHERE x > 5), single(x IN [1, 2] WHERE x > 1)", [(True, False, True, True)]),
    ("CASE", "MATCH (u:User) RETURN u.name, CASE WHEN u.enabled THEN 'on' ELSE 'off' END ORDER BY u.name",
     [(A, "on"), (B, "on"), (C, "off")]),
    ("simple CASE", "RETURN CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END", [("two",)]),
    ("labels() and id()", "MATCH (n {name: 'DC01.LAB.LOCAL'}) RETURN labels(n), id(n) = id(n)",
     [(["Base", "Computer"], True)]),
    ("map projection", "MATCH (d:Domain) RETURN d{.name, .functionallevel, kind: 'domain'}",
     [({"name": "LAB.LOCAL", "functionallevel": "2016", "kind": "domain"},)]),
    ("map literal and keys", "RETURN keys({b: 1, a: 2})", [(["a", "b"],)]),
    ("string functions", "RETURN toLower('AbC'), toUpper('abc'), split('a,b', ','), substring('hello', 1, 3), "
     "replace('aXa', 'X', 'b'), trim('  x '), left('hello', 2), right('hello', 2)",
     [("abc", "ABC", ["a", "b"], "ell", "aba", "x", "he", "lo")]),
    ("conversions", "RETURN toString(12), toInteger('42'), toInteger(3.9), toFloat('1.5'), toBoolean('true'), "
     "toInteger('x')", [("12", 42, 3, 1.5, True, None)]),
    ("coalesce, head, last, size", "RETURN coalesce(null, 'x'), head([1, 2]), last([1, 2]), size('abc'), "
     "size([1, 2, 3])", [("x", 1, 2, 3, 3)]),
    ("arithmetic", "RETURN 1 + 2, 7 / 2, 7.0 / 2, 2 ^ 3, 'a' + 'b', [1] + [2], -(3)",
     [(3, 3, 3.5, 8.0, "ab", [1, 2], -3)]),
    ("list index and slice", "RETURN [1, 2, 3][0], [1, 2, 3][-1], [1, 2, 3][1..], [1, 2, 3][..2]",
     [(1, 3, [2, 3], [1, 2])]),
    ("datetime epochseconds", "MATCH (u:User) WHERE u.pwdlastset < (datetime().epochseconds - (365 * 86400)) "
     "RETURN count(u)", [(2,)]),
    ("duration arithmetic", "RETURN datetime() - duration({days: 90}) < datetime(), "
     "(datetime() - duration('P1D')).epochseconds < datetime().epochseconds", [(True, True)]),
    ("datetime from epoch", "RETURN datetime({epochSeconds: 1600000000}).epochmillis", [(1600000000000,)]),
    ("reduce", "RETURN reduce(s = 0, x IN [1, 2, 3] | s + x), reduce(s = '', x IN ['a', 'b'] | s + x), "
     "reduce(s = 0, x IN null | s + x)", [(6, "ab", None)]),
    ("reduce over a path's nodes", "MATCH p = (:User {name: 'BOB@LAB.LOCAL'})-[:MemberOf|AdminTo*2]->(c) "
     "RETURN reduce(acc = [], n IN nodes(p) | acc + n.name)", [([B, HD, WS],)]),
    ("chained comparisons", "RETURN 1 < 2 < 3, 1 < 3 < 2", [(True, False)]),
    ("startNode endNode", "MATCH (:User {name: 'CAROL@LAB.LOCAL'})-[r]->() RETURN startNode(r).name, "
     "endNode(r).name", [(C, B)]),
    ("RETURN *", "MATCH (d:Domain) WITH d.name AS name RETURN *", [("LAB.LOCAL",)]),
    ("multi-part query", "MATCH (u:User)-[:MemberOf*1..]->(g:Group) WITH DISTINCT u, g MATCH (g)-[:AdminTo]->(c) "
     "RETURN u.name, c.name ORDER BY u.name", [(A, DC), (B, WS)]),
]


@pytest.mark.parametrize(("query", "expected"), [(q, e) for _, q, e in CASES], ids=[n for n, _, _ in CASES])
def test_query(run: Any, query: str, expected: list[tuple[Any, ...]] | None) -> None:
    result = run(query)
    if expected is not None:
        assert rows(result) == expected


def test_union_removes_duplicates(run: Any) -> None:
    result = run("MATCH (n:User) RETURN n.name AS name UNION MATCH (n:Computer) RETURN n.name AS name "
                 "UNION MATCH (n:User) RETURN n.name AS name")
    assert sorted(r[0] for r in rows(result)) == sorted([A, B, C, DC, WS])
    result = run("MATCH (n:User) RETURN n.name AS name UNION ALL MATCH (n:User) RETURN n.name AS name")
    assert sorted(r[0] for r in rows(result)) == sorted([A, B, C] * 2)


def test_returned_paths_load_their_nodes_and_edges(run: Any, graph: dict[str, int]) -> None:
    result = run("MATCH p = shortestPath((u:User {name: 'ALICE@LAB.LOCAL'})-[*1..]->(c:Computer "
                 "{name: 'DC01.LAB.LOCAL'})) RETURN p")
    assert set(result.nodes) == {graph["alice"], graph["it"], graph["da"], graph["dc01"]}
    assert sorted(e.kind for e in result.edges.values()) == ["AdminTo", "MemberOf", "MemberOf"]
    (path,) = result.rows[0]
    assert path[0] == graph["alice"] and path[-1] == graph["dc01"]


def test_all_shortest_paths_keeps_every_path(run: Any, graph: dict[str, int], empty_graph: Any) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('GenericWrite') ON CONFLICT DO NOTHING")
        conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind "
                     "WHERE name = 'GenericWrite'", (graph["bob"], graph["helpdesk"]))
    query = ("MATCH p = {}((u:User {{name: 'BOB@LAB.LOCAL'}})-[*1..]->(c:Computer {{name: 'WS01.LAB.LOCAL'}})) "
             "RETURN [r IN relationships(p) | type(r)] AS kinds")
    every = sorted(r[0] for r in rows(run(query.format("allShortestPaths"))))
    assert every == [["GenericWrite", "AdminTo"], ["MemberOf", "AdminTo"]]
    assert len(run(query.format("shortestPath")).rows) == 1
