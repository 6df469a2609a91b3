"""What a run does to the connection it is given: property values read as the standard parser reads them
(psycopg's reader for the process, set by `Database`), and the connection's loaders left as they were."""

from __future__ import annotations

import json

import pytest
from psycopg.pq import Format

from houndgraph.analysis.ad import dcsync
from houndgraph.graph.json_values import read_json
from tests.analysis.graphs import Graph

AWKWARD_DOCUMENTS = [
    '{"big": 123456789012345678901234567890, "small": -9223372036854775809, "u64": 18446744073709551615}',
    '{"huge": 1e400, "tiny": 1e-400, "zero": -0.0, "float": 0.1, "exp": 1E2}',
    '{"text": "\\ud800 lone surrogate", "digits": "S-1-5-21-1234567890123456789-1", "nested": [[[{"a": null}]]]}',
    '[true, false, null, "ünïcode", 12, 1.5]',
    '"just a string"',
]


@pytest.mark.parametrize("document", AWKWARD_DOCUMENTS)
def test_the_run_reads_json_as_the_standard_parser_does(document: str) -> None:
    expected = json.loads(document)
    for data in (document, document.encode()):
        value = read_json(data)
        assert repr(value) == repr(expected)


def test_the_connection_gets_its_own_json_loaders_back(graph: Graph) -> None:
    oid = graph.conn.adapters.types["jsonb"].oid
    before = [graph.conn.adapters.get_loader(oid, form) for form in Format]
    graph.domain("D")
    graph.run(dcsync.RULE)
    assert [graph.conn.adapters.get_loader(oid, form) for form in Format] == before


def test_a_run_plans_its_reads_for_the_graph_as_it_is_now(graph: Graph) -> None:
    # Autovacuum analyses a changed table only when it next looks; a run that follows an ingest at once must not
    # plan its reads for the tables as they were before it.
    graph.domain("D")
    for index in range(40):
        graph.node(f"U{index}", "User", "Base")
    graph.edges("MemberOf", [(f"U{index}", f"U{index + 1}") for index in range(39)])
    graph.run(dcsync.RULE)
    counts = graph.conn.execute(
        "SELECT c.relname, c.reltuples::bigint, CASE c.relname WHEN 'node' THEN (SELECT count(*) FROM node) "
        "ELSE (SELECT count(*) FROM edge) END FROM pg_class c WHERE c.relname IN ('node', 'edge') ORDER BY 1"
    ).fetchall()
    assert counts == [("edge", 39, 39), ("node", 41, 41)]
