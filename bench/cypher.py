"""Cypher latency on a synthetic AD graph: p50 / p90 per query class.

    .venv/bin/python bench/cypher.py [--users 60000] [--rounds 20]

Builds the graph with set-based SQL in a throw-away embedded PostgreSQL (users 60 %, computers
25 %, groups 15 % of the nodes; about 10 edges per node of the kinds attack paths follow), then
times each query class end to end (parse, translate, BFS, execute, load entities).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

import psycopg

from houndgraph.db import Database
from houndgraph.graph.cypher.execute import run_query
from houndgraph.settings import Settings

TRAVERSABLE = "MemberOf|AdminTo|HasSession|GenericAll|GenericWrite|WriteDacl|Owns"
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


def build(db: Database, users: int) -> tuple[int, int]:
    total = int(users / 0.6)
    computers = int(total * 0.25)
    groups = total - users - computers
    with db.connect_raw(autocommit=True) as conn:
        params = {"users": users, "computers": computers, "groups": groups, "total": total, "acl": total * 4}
        for statement in BUILD.split(";\n"):
            if statement.strip():
                conn.execute(statement, params)
        nodes = conn.execute("SELECT count(*) FROM node").fetchone()
        edges = conn.execute("SELECT count(*) FROM edge").fetchone()
    assert nodes is not None and edges is not None
    return nodes[0], edges[0]


def queries(users: int) -> dict[str, list[str]]:
    rng = random.Random(7)
    picks = [f"{DOMAIN_SID}-{100000 + rng.randint(1, users)}" for _ in range(50)]
    da = f"{DOMAIN_SID}-512"
    return {
        "point lookup": [f"MATCH (n:User {{objectid: '{p}'}}) RETURN n" for p in picks],
        "shortest path user -> Domain Admins": [
            f"MATCH p = shortestPath((u:User {{objectid: '{p}'}})-[:{TRAVERSABLE}*1..]->(g:Group {{objectid: '{da}'}}))"
            " RETURN p" for p in picks],
        "all shortest paths user -> Domain Admins": [
            f"MATCH p = allShortestPaths((u:User {{objectid: '{p}'}})-[:{TRAVERSABLE}*1..]->"
            f"(g:Group {{objectid: '{da}'}})) RETURN p" for p in picks],
        "multi-hop variable length (group nesting)": [
            f"MATCH (u:User {{objectid: '{p}'}})-[:MemberOf*1..]->(g:Group) RETURN DISTINCT g" for p in picks],
        "kerberoastable users": ["MATCH (u:User) WHERE u.hasspn = true AND u.enabled = true RETURN u LIMIT 100"],
        "aggregation (sessions per computer)": [
            "MATCH (c:Computer)-[:HasSession]->(u:User) WITH c, count(u) AS n RETURN c.name, n "
            "ORDER BY n DESC LIMIT 10"],
    }


async def measure(db: Database, texts: list[str], rounds: int) -> list[float]:
    timings = []
    async with await psycopg.AsyncConnection.connect(db.conninfo) as conn:
        for i in range(rounds):
            text = texts[i % len(texts)]
            start = time.perf_counter()
            await run_query(conn, text)
            timings.append((time.perf_counter() - start) * 1000)
            await conn.rollback()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=60000, help="60000 users make a 100k-node graph")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hgb-", dir="/tmp") as tmp:
        db = Database.open(Settings(data_dir=Path(tmp)))
        try:
            db.migrate()
            started = time.perf_counter()
            nodes, edges = build(db, args.users)
            print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                  f"Python {platform.python_version()}")
            print(f"graph: {nodes} nodes, {edges} edges, built in {time.perf_counter() - started:.1f} s\n")
            print(f"{'query class':45} {'p50 ms':>9} {'p90 ms':>9}")
            for name, texts in queries(args.users).items():
                asyncio.run(measure(db, texts, 2))  # warm the parse cache and the buffer cache
                timings = asyncio.run(measure(db, texts, args.rounds))
                p90 = statistics.quantiles(timings, n=10)[-1] if len(timings) > 1 else timings[0]
                print(f"{name:45} {statistics.median(timings):9.1f} {p90:9.1f}")
        finally:
            db.close()


if __name__ == "__main__":
    main()
