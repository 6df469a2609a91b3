from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from houndgraph.db import Database
from tests.analysis.graphs import Graph


@pytest.fixture
def graph(empty_graph: Database) -> Iterator[Graph]:
    """A graph on its own connection; nothing is committed, so each test starts from an empty graph."""
    with empty_graph.connect_raw() as conn:
        yield Graph(conn)
        conn.rollback()


@pytest.fixture
def conn(graph: Graph) -> psycopg.Connection:
    return graph.conn
