"""Test fixtures: one embedded PostgreSQL per test session, migrated once; graph data truncated per test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def data_dir() -> Iterator[Path]:
    # Short path: the PostgreSQL socket lives inside it and unix socket paths are limited to ~100 bytes.
    with tempfile.TemporaryDirectory(prefix="hg-", dir="/tmp") as path:
        yield Path(path)


@pytest.fixture(scope="session")
def database(data_dir: Path) -> Iterator[Database]:
    url = os.environ.get("HOUNDGRAPH_TEST_DATABASE_URL")
    settings = Settings(data_dir=data_dir, database_url=url)
    db = Database.open(settings)
    db.migrate()
    yield db
    db.close()


@pytest.fixture
def raw_conn(database: Database) -> Iterator[psycopg.Connection]:
    with database.connect_raw() as conn:
        yield conn


@pytest.fixture
def empty_graph(database: Database) -> Database:
    """The graph tables emptied (the kind catalogue is kept: ids stay stable across tests)."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
    return database
