"""How a statement's rows come back: at most one row past the row budget, and JSON values read exactly as the
standard parser reads them, whichever parser reads them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph.budget import ResultTooLarge, WorkBudget
from houndgraph.graph.cypher import statement
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.statement import Result, run_statement
from houndgraph.graph.json_values import read_json
from tests.graph.cypher.conftest import cypher


def _statement_rows(database: Database, query: str, budget: WorkBudget) -> Result:
    async def go() -> Result:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            kinds = dict(await (await conn.execute("SELECT name, id FROM kind")).fetchall())
            return await run_statement(conn, parse(query), kinds, budget=budget)

    return asyncio.run(go())


def test_a_result_past_the_row_budget_is_cut_one_row_after_it_in_its_order(empty_graph: Database) -> None:
    result = _statement_rows(empty_graph, "UNWIND range(1, 1000) AS x RETURN x ORDER BY x DESC", WorkBudget(max_rows=5))
    assert [row[0] for row in result.rows] == [1000, 999, 998, 997, 996, 995]
    with pytest.raises(ResultTooLarge):
        cypher(empty_graph, "UNWIND range(1, 1000) AS x RETURN x", budget=WorkBudget(max_rows=5))
    within = cypher(empty_graph, "UNWIND range(1, 5) AS x RETURN x", budget=WorkBudget(max_rows=5))
    assert [row[0] for row in within.rows] == [1, 2, 3, 4, 5]
    union = _statement_rows(empty_graph, "UNWIND range(1, 3) AS x RETURN x UNION ALL UNWIND range(4, 9) AS x RETURN x",
                            WorkBudget(max_rows=4))
    assert len(union.rows) == 5


@pytest.mark.parametrize("text", [
    b'"ALICE@LAB.LOCAL"', b"1600000000", b"-0.0", b"1.5e300", b'[1, 2.5, "x", null, true]', b'{"a": {"b": [1]}}',
    b"12345678901234567890123", b"-9223372036854775809", b"1e400", b'"\\ud800"', b'["S-1-5-21-1234567890123456789"]',
])
def test_json_values_read_as_the_standard_parser_reads_them(text: bytes) -> None:
    value, expected = read_json(text), json.loads(text)
    assert value == expected and type(value) is type(expected)


def test_an_integer_beyond_64_bits_comes_back_exact(run: Any, empty_graph: Database, graph: dict[str, int]) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE node SET properties = properties || %s WHERE id = %s",
                     (Jsonb({"big": 12345678901234567890123}), graph["alice"]))
    assert run("MATCH (u:User) WHERE u.big IS NOT NULL RETURN u.big, u.name").rows == [
        (12345678901234567890123, "ALICE@LAB.LOCAL")]


def test_an_update_writes_every_row_it_matched_past_the_row_budget(empty_graph: Database) -> None:
    """The row budget bounds a response, not the rows an update goes on to write."""
    cypher(empty_graph, "UNWIND range(1, 12) AS i CREATE (:Base {name: 'n' + toString(i)})", allow_mutations=True)
    cypher(empty_graph, "MATCH (n:Base) SET n.touched = true", allow_mutations=True, budget=WorkBudget(max_rows=5))
    counted = cypher(empty_graph, "MATCH (n:Base) WHERE n.touched = true RETURN count(n)")
    assert counted.rows == [(12,)]


@pytest.mark.parametrize(("before", "after"), [("4MB", statement.WORK_MEM), ("1GB", "1GB")])
def test_a_statement_may_hash_and_sort_in_more_memory_for_the_rest_of_its_transaction(
        empty_graph: Database, before: str, after: str) -> None:
    # Nodes join with their properties: a hash of 58k users takes 59 MB, which at 4 MB spills to disk. The
    # statement raises the transaction's work_mem (never lowers it), and the rows are those of the plain way.
    cypher(empty_graph, "CREATE (:User {name: 'A', domain: 'X'})-[:MemberOf]->(:Group {name: 'G', domain: 'Y'})",
           allow_mutations=True)
    query = "MATCH p=(n:User)-[:MemberOf]->(m:Group) WHERE n.domain <> m.domain RETURN n.name, m.name"

    async def go() -> tuple[list[tuple[Any, ...]], str, bool]:
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            default = (await (await conn.execute("SHOW work_mem")).fetchone() or ("",))[0]
            await conn.execute(f"SET LOCAL work_mem = '{before}'")
            kinds = dict(await (await conn.execute("SELECT name, id FROM kind")).fetchall())
            result = await run_statement(conn, parse(query), kinds)
            inside = (await (await conn.execute("SHOW work_mem")).fetchone() or ("",))[0]
            await conn.rollback()
            outside = (await (await conn.execute("SHOW work_mem")).fetchone() or ("",))[0]
            return result.rows, inside, outside == default

    found, inside, restored = asyncio.run(go())
    assert found == [("A", "G")]
    assert inside == after
    assert restored  # only for the transaction
