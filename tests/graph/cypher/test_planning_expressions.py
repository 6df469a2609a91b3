"""How expressions are planned: comparisons between two nodes as plain keys and filters the database can join on,
constants computed once per statement, string functions computed once per node or unwound element, a part of a
split read from the text array, and comparisons of values that are strings or numbers by their form made in jsonb;
with the same answers as the plain plan."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import expressions, operators, patterns
from houndgraph.graph.cypher.translate.translator import translate
from tests.graph.cypher.test_planning import KINDS
from tests.graph.cypher.test_queries import rows


def test_an_equality_between_two_nodes_adds_a_plain_key_the_database_can_hash_join_on(run: Any) -> None:
    query = "MATCH (a:User), (b:User) WHERE a.domain = b.domain RETURN a"
    key = "(nullif(n1.properties->'domain', 'null'::jsonb) = nullif(n2.properties->'domain', 'null'::jsonb))"
    assert key in translate(parse(query), KINDS).sql
    # Cypher's equality still decides: [null] = [null] is null, so bob (no hasspn) pairs with no one.
    result = run("MATCH (a:User), (b:User) WHERE [a.hasspn] = [b.hasspn] AND split(a.name, '@')[1] = "
                 "split(b.name, '@')[1] RETURN a.name, b.name")
    assert sorted(rows(result)) == [("ALICE@LAB.LOCAL", "ALICE@LAB.LOCAL"), ("ALICE@LAB.LOCAL", "CAROL@LAB.LOCAL"),
                                    ("CAROL@LAB.LOCAL", "ALICE@LAB.LOCAL"), ("CAROL@LAB.LOCAL", "CAROL@LAB.LOCAL")]


def test_a_computation_of_constants_runs_once_per_statement(run: Any) -> None:
    hoisted = "MATCH (u:User) WHERE u.pwdlastset < datetime().epochseconds - (1 + 1) * 86400 RETURN u.name"
    sql = translate(parse(hoisted), KINDS).sql
    assert "(SELECT hg_arith('-'" in sql and sql.count("(SELECT") == 1
    assert "(SELECT" not in translate(parse("MATCH (u:User) RETURN u.pwdlastset + 1"), KINDS).sql
    assert sorted(rows(run(hoisted))) == [("ALICE@LAB.LOCAL",), ("BOB@LAB.LOCAL",)]
    assert rows(run("MATCH (u:User) WHERE u.pwdlastset < 1600000000 + 2 * 1 RETURN u.name")) == [("ALICE@LAB.LOCAL",)]


def test_string_operators_between_string_functions_compare_text(run: Any) -> None:
    query = "MATCH (n) WHERE toLower(n.operatingsystem) CONTAINS toLower('WINDOWS') RETURN n.name"
    sql = translate(parse(query), KINDS).sql
    assert "strpos(lower(" in sql and "hg_string_op" not in sql
    assert sorted(rows(run(query))) == [("DC01.LAB.LOCAL",), ("WS01.LAB.LOCAL",)]
    starts = "MATCH (n) WHERE toUpper(n.name) STARTS WITH toUpper('al') RETURN n.name"
    assert rows(run(starts)) == [("ALICE@LAB.LOCAL",)]
    assert rows(run("MATCH (n) WHERE toLower(n.name) ENDS WITH '.local' AND n:Computer RETURN count(n)")) == [(2,)]
    # Not a string: null, so no row, as with the generic operator.
    assert rows(run("MATCH (n:User) WHERE toLower(n.pwdlastset) CONTAINS '1' RETURN n.name")) == []
    assert rows(run("MATCH (n:User) WHERE n.pwdlastset CONTAINS '1' RETURN n.name")) == []


def test_an_inequality_between_two_computed_values_adds_a_plain_filter(run: Any) -> None:
    query = "MATCH (a:User)-[:MemberOf]->(g:Group) WHERE a.domain <> g.domain RETURN a.name"
    # The plain `<>` of the two nodes' key columns (per_node_keys), beside Cypher's.
    sql = translate(parse(query), KINDS).sql
    assert " AND (n1.k0 <> n2.k0)" in sql and "nullif(n1.properties->'domain', 'null'::jsonb) AS k0" in sql, sql
    # Cypher's inequality still decides: [null] <> [true] is null, so carol (no hasspn) and bob differ from no one.
    result = run("MATCH (a:User), (b:User) WHERE [a.hasspn] <> [b.hasspn] RETURN a.name, b.name")
    assert rows(result) == []
    result = run("MATCH (a:User), (b:User) WHERE a.pwdlastset <> b.pwdlastset RETURN a.name, b.name")
    assert sorted(rows(result)) == [("ALICE@LAB.LOCAL", "BOB@LAB.LOCAL"), ("BOB@LAB.LOCAL", "ALICE@LAB.LOCAL")]


_PER_NODE = re.compile(r"CROSS JOIN \(SELECT (n\d+)\.\*, .* AS t0(, .* AS t1)? FROM node AS \1 OFFSET 0\) AS \1")


def _same_answer_without(run: Any, monkeypatch: pytest.MonkeyPatch, query: str, module: Any, name: str,
                         off: Any, plain_sql: Callable[[str], bool]) -> list[str]:
    """The query's rows (as reprs, sorted), checked equal to those with `module.name` replaced by `off`, the
    plan choice switched off (`plain_sql` tells the plain statement from the chosen one)."""
    answer = sorted(map(repr, rows(run(query))))
    with monkeypatch.context() as plain:
        plain.setattr(module, name, off)
        assert plain_sql(translate(parse(query), KINDS).sql)
        assert answer == sorted(map(repr, rows(run(query))))
    return answer


@pytest.mark.parametrize(("query", "per_node"), [
    # Every node against every word: the node's lower-cased name and description are computed once per node.
    ("UNWIND ['ali', 'LAB', 'win', 3, null] AS word MATCH (n) WHERE toLower(n.name) CONTAINS toLower(word) "
     "OR toLower(n.operatingsystem) CONTAINS toLower(word) RETURN word, n.name", True),
    ("UNWIND ['alice', 'bob'] AS w MATCH (n) WHERE toLower(n.name) STARTS WITH w WITH w, n MATCH (m) "
     "WHERE toUpper(m.name) = toUpper(n.name) RETURN w, n.name, m.name", True),
    # A condition on the node alone, or a label: its rows may come from an index, so its scan stays plain.
    ("UNWIND ['ali', 'bob'] AS word MATCH (n) WHERE toLower(n.name) CONTAINS toLower(word) AND n.enabled "
     "RETURN word, n.name", False),
    ("UNWIND ['ali', 'bob'] AS word MATCH (n:User) WHERE toLower(n.name) CONTAINS toLower(word) "
     "RETURN word, n.name", False),
    ("UNWIND ['ALICE@LAB.LOCAL', 'BOB@LAB.LOCAL'] AS word MATCH (n) WHERE n.name = word "
     "AND toLower(n.name) STARTS WITH toLower(word) RETURN word, n.name", False),
    ("UNWIND ['ali', 'bob'] AS n MATCH (m) WHERE any(n IN [m.name] WHERE toLower(n) CONTAINS 'a') "
     "RETURN n, m.name", False),
])
def test_string_functions_of_a_node_compared_with_earlier_rows_are_computed_once_per_node(
        run: Any, monkeypatch: pytest.MonkeyPatch, query: str, per_node: bool) -> None:
    sql = translate(parse(query), KINDS).sql
    assert bool(_PER_NODE.search(sql)) is per_node, sql
    # The words' text is computed once per word as well.
    assert "END AS t, lower(CASE" in sql
    answer = _same_answer_without(run, monkeypatch, query, patterns, "per_node_texts", lambda *args: {},
                                  lambda plain: not _PER_NODE.search(plain))
    if per_node:
        assert answer


@pytest.mark.parametrize("query", [
    # Users compared on a part of their names (the community corpus: the same name in two domains).
    "MATCH (a:User), (b:User) WHERE split(a.name, '@')[1] = split(b.name, '@')[1] AND a <> b RETURN a.name, b.name",
    # In range, past the end, of a non-string, of a missing property, of an empty string, by a null delimiter.
    "MATCH (n) RETURN n.name, split(n.name, '@')[0], split(n.name, '@')[1], split(n.name, '@')[2], "
    "split(n.name, '.')[3], split(n.pwdlastset, '@')[0], split(n.nothing, '@')[0], split('', '@')[0], "
    "split(n.name, null)[0], split(n.name, '')[1], split(n.name, 'LAB')[1]",
    "MATCH (n) WHERE toInteger(split(n.objectid, '-')[5]) >= 1102 RETURN n.name",
])
def test_a_part_of_a_split_at_a_written_position_reads_the_text_array(run: Any, monkeypatch: pytest.MonkeyPatch,
                                                                      query: str) -> None:
    sql = translate(parse(query), KINDS).sql
    assert "hg_index(" not in sql and "(string_to_array(" in sql, sql
    assert _same_answer_without(run, monkeypatch, query, expressions, "is_split_part", lambda e: False,
                                lambda plain: "hg_index(" in plain)


def test_a_part_of_a_split_counted_from_the_end_or_past_an_int_reads_the_list() -> None:
    sql = translate(parse("MATCH (n) RETURN split(n.name, '@')[-1], split(n.name, '@')[toInteger('1')], "
                          "split(n.name, '@')[4294967296]"), KINDS).sql
    assert sql.count("hg_index(") == 3, sql


@pytest.mark.parametrize("query", [
    # The keyword search of the community corpus: each word lower-cased once, not once per (node, word) pair.
    "UNWIND ['ali', 'LAB', 'Win', 3, null] AS word MATCH (n) WHERE toLower(n.name) CONTAINS toLower(word) "
    "OR toLower(n.operatingsystem) CONTAINS toLower(word) RETURN word, n.name",
    "UNWIND ['alice', 'LAB.LOCAL ', ['x'], true, null] AS w MATCH (n:User) "
    "WHERE toUpper(n.name) STARTS WITH toUpper(w) OR n.name ENDS WITH trim(w) RETURN w, n.name",
    "UNWIND ['LACOL.BAL', 'x'] AS w MATCH (n) WHERE reverse(w) CONTAINS toUpper(n.name) "
    "OR n.name ENDS WITH rtrim(ltrim(w)) RETURN w, n.name, reverse(n.name), toLower(w)",
])
def test_string_functions_of_an_unwound_element_are_computed_once_per_element(
        run: Any, monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    sql = translate(parse(query), KINDS).sql
    assert re.search(r"WHERE .*u\d+\.f\d", sql), sql
    assert _same_answer_without(run, monkeypatch, query, expressions, "computed_per_element", lambda *args: None,
                                lambda plain: not re.search(r"u\d+\.f\d", plain))


def test_reverse_of_a_string(run: Any) -> None:
    assert rows(run("MATCH (n:User) WHERE reverse(n.name) STARTS WITH 'LACOL' RETURN reverse(n.name) "
                    "ORDER BY n.name LIMIT 1")) == [("LACOL.BAL@ECILA",)]


@pytest.mark.parametrize("query", [
    "MATCH (a:User), (b:User) WHERE split(a.name, '@')[1] = split(b.name, '@')[1] AND a <> b RETURN a.name, b.name",
    "MATCH (a), (b) WHERE toUpper(a.name) = b.name RETURN a.name, b.name",
    "MATCH (a), (b) WHERE a.objectid <> toUpper(b.objectid) AND a.enabled RETURN a.name, b.name",
    "UNWIND [['x'], {k: 1}, 'it@lab.local', null] AS v MATCH (a) "
    "WHERE toLower(a.name) = v OR v = split(a.name, 'Q')[0] RETURN v, a.name",
])
def test_an_equality_with_a_side_that_is_a_string_by_its_form_compares_jsonb(
        run: Any, monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    # Never a list or a map: Cypher's `=` is jsonb's, without the list and map cases (each reading both sides).
    assert "hg_equal(" not in translate(parse(query), KINDS).sql
    assert _same_answer_without(run, monkeypatch, query, operators, "_scalar_by_form", lambda e: False,
                                lambda plain: "hg_equal(" in plain)


_KEY_COLUMNS = re.compile(r" AS k\d+ FROM node AS (n\d+)")


@pytest.mark.parametrize(("query", "keyed"), [
    # The community corpus: users of the same name in two domains, their keys computed once per user.
    ("MATCH (u1:User),(u2:User) WHERE split(u1.name,'@')[0] = split(u2.name,'@')[0] AND u1.domain <> u2.domain "
     "AND tointeger(split(u1.objectid,'-')[7]) >= 1000 RETURN u1", {"n1", "n2"}),
    ("MATCH (a:User), (b) WHERE split(a.name, '@')[1] = split(b.name, '.')[1] AND a <> b RETURN a.name, b.name",
     {"n1", "n2"}),
    ("MATCH (a), (b:Group) WHERE toLower(a.name) = toLower(b.name) RETURN a.name, b.name", {"n1", "n2"}),
    # Two keys of a node; a node of a relationship pattern.
    ("MATCH (a)-[:MemberOf]->(g), (b:User) WHERE toUpper(a.domain) = toUpper(b.domain) "
     "AND size(split(a.name, '@')) = size(split(b.name, 'L')) RETURN a.name, g.name, b.name", {"n1", "n4"}),
    ("MATCH (a), (b) WHERE a.pwdlastset + 1 = b.pwdlastset - 1 + 2 RETURN a.name, b.name", {"n1", "n2"}),
    # A node found by an index, or by its map, keeps its plain scan.
    ("MATCH (a:User), (b:User) WHERE a.name = 'ALICE@LAB.LOCAL' AND toLower(a.domain) = toLower(b.domain) "
     "RETURN b.name", {"n2"}),
    ("MATCH (a:User {name: 'BOB@LAB.LOCAL'}), (b) WHERE toLower(a.domain) = toLower(b.domain) RETURN b.name",
     {"n2"}),
    ("MATCH (a:User), (b:Group) WHERE a.name CONTAINS 'LI' AND toLower(a.domain) = toLower(b.domain) "
     "RETURN a.name, b.name", {"n2"}),
    # A property equal to another node's value may find its node by an index; a comparison of one node with
    # itself joins nothing.
    ("MATCH (a), (b) WHERE a.name = toUpper(b.name) RETURN a.name, b.name", {"n2"}),
    ("MATCH (a), (b) WHERE toLower(a.name) = toUpper(a.domain) AND a <> b RETURN a.name, b.name", set()),
    # Properties compared as unequal (users in groups of another domain): read once per node, the rest of the
    # node's properties left behind.
    ("MATCH p=(n:User)-[:MemberOf]->(m:Group) WHERE m.domainsid <> n.domainsid RETURN p", {"n1", "n2"}),
    ("MATCH (n:User)-[:MemberOf]->(m:Group) WHERE [n.domain] <> [m.domain] OR n.domain IS NULL "
     "RETURN n.name, m.name", set()),
    ("MATCH (n:User)-[:MemberOf]->(m) WHERE n.domain <> m.domain AND NOT [n.domain] = [m.nothing] "
     "RETURN n.name, m.name", {"n1", "n2"}),
])
def test_a_join_key_computed_from_one_node_each_side_is_a_column_of_the_node_scan(
        run: Any, monkeypatch: pytest.MonkeyPatch, query: str, keyed: set[str]) -> None:
    sql = translate(parse(query), KINDS).sql
    assert set(_KEY_COLUMNS.findall(sql)) == keyed, sql
    _same_answer_without(run, monkeypatch, query, patterns, "per_node_keys", lambda *args: {},
                         lambda plain: not _KEY_COLUMNS.search(plain))


def test_the_key_columns_give_the_pairs_of_the_plain_join(run: Any) -> None:
    # The users of the same domain, each with the others.
    result = run("MATCH (a:User), (b:User) WHERE split(a.name, '@')[1] = split(b.name, '@')[1] AND a <> b "
                 "RETURN a.name, b.name")
    assert sorted(rows(result)) == [("ALICE@LAB.LOCAL", "BOB@LAB.LOCAL"), ("ALICE@LAB.LOCAL", "CAROL@LAB.LOCAL"),
                                    ("BOB@LAB.LOCAL", "ALICE@LAB.LOCAL"), ("BOB@LAB.LOCAL", "CAROL@LAB.LOCAL"),
                                    ("CAROL@LAB.LOCAL", "ALICE@LAB.LOCAL"), ("CAROL@LAB.LOCAL", "BOB@LAB.LOCAL")]


@pytest.mark.parametrize("query", [
    "MATCH (n) WHERE toInteger(split(n.objectid, '-')[5]) >= 1102 RETURN n.name",
    "MATCH (n) WHERE 1102.5 > toInteger(split(n.objectid, '-')[5]) RETURN n.name",
    # (toFloat() of a boolean, and either of a list or a map, is Neo4j's InvalidArgumentValue: not among them.)
    "UNWIND ['12', ' 7 ', '1e2', 'x', '', null, 3.7, -2] AS v "
    "WITH v, toInteger(v) AS i, toFloat(v) AS f "
    "RETURN v, toInteger(v) < 10, toFloat(v) >= 3.7, toIntegerOrNull(v) <= -2, toFloatOrNull(v) > 99, i, f",
])
def test_an_ordering_of_two_numbers_by_their_form_compares_jsonb(run: Any, monkeypatch: pytest.MonkeyPatch,
                                                                  query: str) -> None:
    # toInteger() against a number: jsonb's own ordering, not a call of hg_cmp per row.
    assert "hg_cmp(" not in translate(parse(query), KINDS).sql
    assert _same_answer_without(run, monkeypatch, query, operators, "_number_by_form", lambda e: False,
                                lambda plain: "hg_cmp(" in plain)
