"""The functions and triggers that run inside PostgreSQL come from the package's `.sql` files, installed at start."""

from __future__ import annotations

import re

import psycopg

from houndgraph import database_code
from houndgraph.db import Database
from tests.conftest import scratch_database

# The functions and triggers of the database's own schema, extensions' functions left out.
FUNCTIONS = ("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
             "WHERE n.nspname = 'public' "
             "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')")
TRIGGERS = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
DEFINED = re.compile(r"^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?(FUNCTION|AGGREGATE|TRIGGER) (\w+)", re.MULTILINE)


def _defined_in_files(kind: str) -> set[str]:
    # An aggregate is a function to PostgreSQL (pg_proc).
    return {name for code in database_code.code_files() for found, name in DEFINED.findall(code.text)
            if found.replace("AGGREGATE", "FUNCTION") == kind}


def _recorded(conn: psycopg.Connection) -> dict[str, tuple[str, str]]:
    rows = conn.execute("SELECT file, digest, revision FROM installed_database_code").fetchall()
    return {file: (digest, revision) for file, digest, revision in rows}


def _head(conn: psycopg.Connection) -> str:
    row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert row is not None
    return str(row[0])


def test_every_function_and_trigger_the_database_runs_is_defined_in_a_sql_file_of_the_package(
        database: Database) -> None:
    with database.connect_raw() as conn:
        functions = {name for (name,) in conn.execute(FUNCTIONS).fetchall()}
        triggers = {name for (name,) in conn.execute(TRIGGERS).fetchall()}
    assert functions == _defined_in_files("FUNCTION")
    assert triggers == _defined_in_files("TRIGGER")


def test_a_start_records_the_digest_of_every_file_it_installed(database: Database) -> None:
    with database.connect_raw() as conn:
        head = _head(conn)
        assert _recorded(conn) == {code.name: (code.digest, head) for code in database_code.code_files()}
        # Nothing changed since: a second installation runs nothing.
        assert database_code.install(conn, head) == []


def test_a_file_whose_digest_changed_is_installed_again_at_the_next_start(database: Database) -> None:
    with scratch_database(database, "hg_code") as scratch:
        with scratch.connect_raw() as conn:
            # A definition the file does not hold, under a digest that is not the file's.
            conn.execute("CREATE OR REPLACE FUNCTION hg_neg(a jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT a $$")
            conn.execute("UPDATE installed_database_code SET digest = 'older' WHERE file = 'graph/cypher/helpers.sql'")
            conn.commit()
        scratch.migrate()
        with scratch.connect_raw() as conn:
            row = conn.execute("SELECT hg_neg('5'::jsonb)").fetchone()
            assert row is not None and row[0] == -5
            helpers = next(code for code in database_code.code_files() if code.name == "graph/cypher/helpers.sql")
            assert _recorded(conn)["graph/cypher/helpers.sql"][0] == helpers.digest


def test_files_recorded_under_another_schema_revision_are_installed_again(database: Database) -> None:
    """A migration may have replaced a definition: the files win whenever the schema moved."""
    with scratch_database(database, "hg_code") as scratch:
        with scratch.connect_raw() as conn:
            conn.execute("CREATE OR REPLACE FUNCTION hg_neg(a jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT a $$")
            conn.execute("UPDATE installed_database_code SET revision = 'older'")
            conn.commit()
        scratch.migrate()
        with scratch.connect_raw() as conn:
            row = conn.execute("SELECT hg_neg('5'::jsonb)").fetchone()
            assert row is not None and row[0] == -5
            assert {revision for _, revision in _recorded(conn).values()} == {_head(conn)}
