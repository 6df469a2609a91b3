"""Generated Cypher (hypothesis) against POST /api/v2/graphs/cypher over the small hand-drawn graph: whatever
the query, valid or not, the answer is never a 5xx. A query PostgreSQL refuses is a 400 like any other.

Bounded: CYPHER_EXAMPLES queries (HOUNDGRAPH_FUZZ_EXAMPLES * 10, 60 by default); set it higher for a longer hunt."""

from __future__ import annotations

import os

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph

CYPHER_EXAMPLES = 10 * int(os.environ.get("HOUNDGRAPH_FUZZ_EXAMPLES", "6"))

_literals = st.one_of(
    st.integers(-(2**64), 2**64).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["null", "true", "false", "'a'", "''", "'ALICE@LAB.LOCAL'", "[]", "{}", "[1, 2, 3]",
                     "[null]", "[[1], [null]]", "{a: 1, b: 'x'}", "0.0", "-0.0", "1e308", "9223372036854775807",
                     "(0.0 / 0.0)", "(1.0 / 0)", "(-1.0 / 0)"]),
)
_atoms = st.one_of(_literals, st.sampled_from(["n", "m", "r", "n.name", "n.pwdlastset", "n.enabled", "m.name",
                                                "r.isacl", "n.missing", "labels(n)", "type(r)", "id(n)", "x"]))
_unary = ["NOT {}", "-{}", "size({})", "head({})", "tail({})", "toString({})", "toInteger({})", "toFloat({})",
          "abs({})", "keys({})", "coalesce({}, 1)", "{} IS NULL", "{} IS NOT NULL", "[{}]", "reverse({})",
          "toLower({})", "sqrt({})", "{}[0]", "{}[1..]", "{}[..null]", "{}['name']", "collect({})", "count({})",
          "sum({})", "avg({})", "min({})", "max({})", "[y IN {} | y]", "any(y IN {} WHERE y = 1)",
          "CASE {} WHEN 1 THEN 'one' ELSE 'other' END", "{{k: {}}}", "range(0, {})", "split({}, ',')"]
_binary = ["+", "-", "*", "/", "%", "^", "=", "<>", "<", ">=", "AND", "OR", "XOR", "IN", "STARTS WITH",
           "CONTAINS", "=~", "IS NULL OR"]


def _expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        _atoms,
        lambda inner: st.one_of(
            st.tuples(st.sampled_from(_unary), inner).map(lambda t: t[0].format(t[1])),
            st.tuples(inner, st.sampled_from(_binary), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        ),
        max_leaves=6,
    )


_heads = st.sampled_from(["MATCH (n)", "MATCH (n:User)", "MATCH (n)-[r]->(m)", "MATCH (n) OPTIONAL MATCH (n)-[r]->(m)",
                          "UNWIND [1, null, 'a', [2]] AS x MATCH (n)", "MATCH p = (n)-[r*1..2]->(m)",
                          "MATCH (n) WITH n, count(*) AS x"])
_tails = st.sampled_from(["", " ORDER BY v", " ORDER BY v DESC SKIP 1", " LIMIT 3", " SKIP 1 LIMIT 1"])


@st.composite
def queries(draw: st.DrawFn) -> str:
    where = draw(st.one_of(st.just(""), _expressions().map(lambda e: f" WHERE {e}")))
    distinct = draw(st.sampled_from(["", "DISTINCT "]))
    return f"{draw(_heads)}{where} RETURN {distinct}{draw(_expressions())} AS v{draw(_tails)}"


@pytest.mark.usefixtures("graph")
@settings(max_examples=CYPHER_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(query=queries())
def test_generated_queries_never_answer_5xx(admin: httpx.Client, query: str) -> None:
    response = admin.post("/api/v2/graphs/cypher", json={"query": query})
    assert response.status_code < 500, f"{query}\n{response.status_code} {response.text[:300]}"
