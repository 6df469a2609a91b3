"""The graph tests' fixtures beyond tests/conftest.py's: a connection on an empty graph, for the store's tests."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from houndgraph.db import Database


@pytest.fixture
def conn(empty_graph: Database) -> Iterator[psycopg.Connection]:
    """A connection in a transaction on an empty graph; nothing is committed unless a test does."""
    with empty_graph.connect_raw() as connection:
        yield connection
