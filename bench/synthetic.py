"""The synthetic AD graph the latency benchmarks share, and their common plumbing.

The graph is built with set-based SQL: users 60 %, computers 25 %, groups 15 % of the nodes, about 10 edges
per node of the kinds attack paths follow; 60 000 users make a 100k-node graph.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from psycopg.types.numeric import Int8

from houndgraph.db import Database
from houndgraph.settings import Settings, usable_cpus

DOMAIN_SID = "S-1-5-21-42"

BUILD = """
INSERT INTO kind (name) SELECT unnest(ARRAY['Base', 'User', 'Computer', 'Group', 'MemberOf', 'AdminTo',
  'HasSession', 'GenericAll', 'GenericWrite', 'WriteDacl', 'Owns']) ON CONFLICT DO NOTHING;
CREATE TEMP TABLE k AS SELECT name, id FROM kind;
INSERT INTO node (id, kind_ids, properties)
SELECT i, ARRAY[(SELECT id FROM k WHERE name = 'Base'), (SELECT id FROM k WHERE name = CASE
         WHEN i <= %(users)s THEN 'User' WHEN i <= %(users)s + %(computers)s THEN 'Computer' ELSE 'Group' END)],
       jsonb_build_object('objectid', CASE WHEN i = %(total)s THEN '{sid}-512' ELSE '{sid}-' || (100000 + i) END,
                          'name', 'OBJECT' || i || '@BENCH.LOCAL', 'enabled', i %% 10 <> 0,
                          'hasspn', i %% 97 = 0, 'lastlogon', 1600000000 + i)
FROM generate_series(1, %(total)s) AS i;
-- users and computers join 4 groups; groups nest into one group of a higher number (no cycles)
INSERT INTO edge (start_id, end_id, kind_id)
SELECT DISTINCT s, %(users)s + %(computers)s + 1 + floor(random() * %(groups)s)::bigint,
       (SELECT id FROM k WHERE name = 'MemberOf')
FROM generate_series(1, %(users)s + %(computers)s) AS s, generate_series(1, 4)
ON CONFLICT DO NOTHING;
INSERT INTO edge (start_id, end_id, kind_id)
SELECT g, least(%(total)s, g + 1 + floor(random() * 50)::bigint), (SELECT id FROM k WHERE name = 'MemberOf')
FROM generate_series(%(users)s + %(computers)s + 1, %(total)s - 1) AS g ON CONFLICT DO NOTHING;
-- groups administer computers, computers hold sessions of users, ACL edges between random principals
INSERT INTO edge (start_id, end_id, kind_id)
SELECT g, %(users)s + 1 + floor(random() * %(computers)s)::bigint, (SELECT id FROM k WHERE name = 'AdminTo')
FROM generate_series(%(users)s + %(computers)s + 1, %(total)s) AS g, generate_series(1, 8)
ON CONFLICT DO NOTHING;
INSERT INTO edge (start_id, end_id, kind_id)
SELECT c, 1 + floor(random() * %(users)s)::bigint, (SELECT id FROM k WHERE name = 'HasSession')
FROM generate_series(%(users)s + 1, %(users)s + %(computers)s) AS c, generate_series(1, 12)
ON CONFLICT DO NOTHING;
INSERT INTO edge (start_id, end_id, kind_id)
SELECT 1 + floor(random() * %(total)s)::bigint, 1 + floor(random() * %(total)s)::bigint,
       (SELECT id FROM k WHERE name = (ARRAY['GenericAll', 'GenericWrite', 'WriteDacl', 'Owns'])[1 + (n %% 4)])
FROM generate_series(1, %(acl)s) AS n ON CONFLICT DO NOTHING;
SELECT setval(pg_get_serial_sequence('node', 'id'), %(total)s);
ANALYZE node; ANALYZE edge;
""".replace("{sid}", DOMAIN_SID)


def run_script(db: Database, script: str, params: dict[str, Any] | None = None) -> None:
    """Statements separated by `;` at the end of a line, run one by one in autocommit."""
    # Every int as bigint: psycopg binds a small int as smallint, and sums of them would overflow.
    bound = {key: Int8(value) if isinstance(value, int) else value for key, value in (params or {}).items()}
    with db.connect_raw(autocommit=True) as conn:
        for statement in script.split(";\n"):
            if statement.strip():
                conn.execute(statement, bound or None)


def build(db: Database, users: int) -> None:
    total = int(users / 0.6)
    computers = int(total * 0.25)
    groups = total - users - computers
    run_script(db, BUILD, {"users": users, "computers": computers, "groups": groups, "total": total,
                           "acl": total * 4})


def graph_size(db: Database) -> tuple[int, int]:
    """Nodes and edges."""
    with db.connect_raw() as conn:
        nodes = conn.execute("SELECT count(*) FROM node").fetchone()
        edges = conn.execute("SELECT count(*) FROM edge").fetchone()
    assert nodes is not None and edges is not None
    return nodes[0], edges[0]


@contextmanager
def throwaway_database(prefix: str) -> Iterator[Database]:
    """A migrated embedded PostgreSQL in a temporary directory, gone at the end of the block."""
    with tempfile.TemporaryDirectory(prefix=prefix, dir="/tmp") as tmp:
        db = Database.open(Settings(data_dir=Path(tmp)))
        try:
            db.migrate()
            yield db
        finally:
            db.close()


def arguments(description: str) -> argparse.Namespace:
    """The options every benchmark on this graph takes: its size and the timed rounds per operation."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--users", type=int, default=60000, help="60000 users make a 100k-node graph")
    parser.add_argument("--rounds", type=int, default=20)
    return parser.parse_args()


def machine() -> str:
    return (f"machine: {platform.processor() or platform.machine()}, {usable_cpus()} cores, "
            f"Python {platform.python_version()}")


def p50_p90(timings: list[float]) -> tuple[float, float]:
    p90 = statistics.quantiles(timings, n=10)[-1] if len(timings) > 1 else timings[0]
    return statistics.median(timings), p90
