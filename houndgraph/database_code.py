"""SQL that runs inside PostgreSQL: the functions and triggers of the package's `.sql` files, installed at start.

Each definition lives in one `.sql` file beside the Python that relies on it, and that file is its current
version: migrations only create tables (and, before `installed_database_code`, created the earlier versions of
these definitions, which they keep as history). After the migrations, `install` runs every file whose digest
differs from the one recorded in `installed_database_code`, or that was recorded under another schema revision
(a migration may have replaced a definition; the file wins), each in the migration's transaction. A changed
file is thus reviewed, diffed and tested as code, and needs no migration of its own.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)

PACKAGE = Path(__file__).resolve().parent

# In the order they are installed: a function is created before the functions and triggers that call it.
FILES = (
    "graph/store/node_edges.sql",        # a node's edges go with it
    "graph/store/generation.sql",        # the graph generation: what analysis and the planner's statistics read
    "graph/store/edge_generation.sql",   # the edge generation: whether the path projection's copy is current
    "auth/cache_generation.sql",         # the cache generation: when a process's remembered credentials expire
    "graph/cypher/temporal/stored.sql",  # temporal values computed and stored inside the statements
    "graph/cypher/helpers.sql",          # Cypher's value semantics for the translated statements
    "graph/pair_path_edges.sql",         # the path search between two nodes
    "worker/datapipe_wake.sql",          # writes that give the datapipe work wake it
)


@dataclass(frozen=True, slots=True)
class CodeFile:
    name: str
    text: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def code_files() -> list[CodeFile]:
    return [CodeFile(name, (PACKAGE / name).read_text(encoding="utf-8")) for name in FILES]


def install(conn: psycopg.Connection, revision: str) -> list[str]:
    """Run the files that changed since they were last installed (or were installed under another schema
    revision) and record them; the names of those run. The caller commits."""
    rows = conn.execute("SELECT file, digest || ' ' || revision FROM installed_database_code").fetchall()
    recorded: dict[str, str] = dict(rows)
    installed = []
    for code in code_files():
        if recorded.get(code.name) == f"{code.digest} {revision}":
            continue
        conn.execute(code.text.encode())  # no parameters: the file runs as written, several statements at once
        conn.execute("INSERT INTO installed_database_code (file, digest, revision) VALUES (%s, %s, %s) "
                     "ON CONFLICT (file) DO UPDATE SET digest = excluded.digest, revision = excluded.revision, "
                     "installed_at = now()", (code.name, code.digest, revision))  # fmt: skip
        installed.append(code.name)
    if installed:
        log.info("installed the database code of %s (schema revision %s)", ", ".join(installed), revision)
    return installed
