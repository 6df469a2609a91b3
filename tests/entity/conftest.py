from __future__ import annotations

from collections.abc import Iterator

import pytest

from houndgraph.db import Database
from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph
from tests.labs import clear, load_labs


@pytest.fixture(scope="module")
def labs(database: Database) -> Iterator[Database]:
    load_labs(database)
    yield database
    clear(database)
