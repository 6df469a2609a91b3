"""What a run does to the connection it is given: property values read as the standard parser reads them
(psycopg's reader for the process, set by `Database`), and the connection's loaders left as they were."""

from __future__ import annotations

import json

import pytest
from psycopg.pq import Format

from houndgraph.analysis import dcsync
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
