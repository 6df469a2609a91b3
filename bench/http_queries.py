"""Queries a user sends, timed over HTTP against `houndgraph serve` on the synthetic 100k-node graph.

    .venv/bin/python bench/http_queries.py [--users 60000] [--rounds 20] [--only TEXT ...] [--keep DIR]

One client, one request at a time on one kept-alive connection, the queries taking turns: p50, p90 and p99
of each query as a user meets it (authentication, the request deadline, JSON out included), the nodes in
its last answer, and the load average while it ran. The client is the load benchmark's plain HTTP/1.1
connection: httpx spends about a millisecond of the machine's CPU per request, as much as a cheap route
costs the service. `--only` keeps the queries whose names hold one of the texts (`--only path self`).
`GET /api/v2/self` is the cost of a request that reads nothing but the caller. Path searches: one user to
Domain Admins (the shortest-path route, which answers every shortest path, the legacy pathfinding route,
Cypher shortestPath and allShortestPaths), and many sources to one target or to Tier Zero (all enabled
users, and the pre-built searches of the explorer).
Before the timed rounds the path searches' copy of the edges is built (its bytes per edge printed), and Domain
Admins and a few computers are tagged Tier Zero and a few users Owned, as the analysis and a user would.
`--keep DIR` keeps the database in DIR and reuses it on the next run (no rebuild; the service migrates it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from load import PASSWORD, start_service  # bench/load.py
from load_clients import Connection  # bench/load_clients.py
from synthetic import (
    DOMAIN_SID,
    build,
    graph_size,
    machine,
    p50_p90,
    run_script,
    throwaway_database,
)

from houndgraph.db import Database
from houndgraph.graph.projection.csr import META
from houndgraph.graph.projection.reading import VERSION as EDGE_VERSION
from houndgraph.graph.projection.store import PROJECTION_DIRECTORY
from houndgraph.settings import Settings

DOMAIN_ADMINS = f"{DOMAIN_SID}-512"


TIERS = f"""
INSERT INTO kind (name) VALUES ('Tag_Tier_Zero'), ('Tag_Owned') ON CONFLICT DO NOTHING;
UPDATE node SET kind_ids = kind_ids || (SELECT id FROM kind WHERE name = 'Tag_Tier_Zero'),
       properties = properties || '{{"system_tags": "admin_tier_0"}}'
WHERE properties->>'objectid' = '{DOMAIN_ADMINS}' OR id IN (%(users)s + 1, %(users)s + 2, %(users)s + 3);
UPDATE node SET kind_ids = kind_ids || (SELECT id FROM kind WHERE name = 'Tag_Owned'),
       properties = properties || '{{"system_tags": "owned"}}'
WHERE id %% 3001 = 0 AND id <= %(users)s;
"""
# The edge kinds of the explorer's pre-built searches (web/src/data/prebuilt.json).
PREBUILT = "MemberOf|AdminTo|HasSession|GenericAll|GenericWrite|WriteDacl|WriteOwner|Owns|ForceChangePassword|" \
    "AddMember|AllExtendedRights"


def cypher(query: str) -> tuple[str, str, dict | None]:
    return "POST", "/api/v2/graphs/cypher", {"query": query}


def queries(users: int) -> list[tuple[str, str, str, dict | None]]:
    user = f"{DOMAIN_SID}-{100000 + random.randint(1, users)}"
    one = f"(u:User {{objectid: '{user}'}})-[*1..]->(g:Group {{objectid: '{DOMAIN_ADMINS}'}})"
    to_da = f"(u:User)-[*1..]->(g:Group {{objectid: '{DOMAIN_ADMINS}'}})) WHERE u.enabled = true RETURN p LIMIT 1000"
    return [
        ("self", "GET", "/api/v2/self", None),
        ("shortest-path route user -> DA", "GET",
         f"/api/v2/graphs/shortest-path?start_node={user}&end_node={DOMAIN_ADMINS}", None),
        ("pathfinding route user -> DA (all)", "GET",
         f"/api/v2/pathfinding?start_node={user}&end_node={DOMAIN_ADMINS}", None),
        ("Cypher shortestPath user -> DA", *cypher(f"MATCH p=shortestPath({one}) RETURN p")),
        ("Cypher allShortestPaths user -> DA", *cypher(f"MATCH p=allShortestPaths({one}) RETURN p")),
        ("enabled users -> DA shortestPath", *cypher(f"MATCH p=shortestPath({to_da}")),
        ("enabled users -> DA allShortestPaths", *cypher(f"MATCH p=allShortestPaths({to_da}")),
        ("pre-built: to Domain Admins", *cypher(
            f"MATCH p=shortestPath((n:Base)-[:{PREBUILT}|AddKeyCredentialLink|AllowedToDelegate|AllowedToAct|"
            "DCSync|CanRDP|CanPSRemote|ExecuteDCOM*1..]->(g:Group)) WHERE g.objectid ENDS WITH '-512' AND n <> g "
            "RETURN p LIMIT 1000")),
        ("pre-built: owned -> Tier Zero", *cypher(
            f"MATCH p=shortestPath((o:Base)-[:{PREBUILT}*1..]->(t:Base)) WHERE o.system_tags CONTAINS 'owned' "
            "AND t.system_tags CONTAINS 'admin_tier_0' AND o <> t RETURN p LIMIT 1000")),
        ("pre-built: Kerberoastable -> Tier Zero", *cypher(
            f"MATCH p=shortestPath((u:User)-[:{PREBUILT}*1..]->(t:Base)) WHERE u.hasspn = true AND "
            "u.enabled = true AND t.system_tags CONTAINS 'admin_tier_0' AND u <> t RETURN p LIMIT 1000")),
        ("every node -> Tag_Tier_Zero", *cypher(
            "MATCH p=shortestPath((n)-[*1..]->(m)) WHERE m:Tag_Tier_Zero AND n <> m RETURN p LIMIT 1000")),
        ("variable length from the filtered end", *cypher(
            "MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-512' RETURN p LIMIT 100")),
        ("count enabled users", *cypher("MATCH (n:User) WHERE n.enabled = true RETURN count(n)")),
        ("user entity panel", "GET", f"/api/v2/users/{user}", None),
        ("search by name", "GET", f"/api/v2/search?q=OBJECT{random.randint(1, users)}&type=User", None),
    ]


def answer_size(status: int, body: bytes) -> int | None:
    """Nodes in a graph answer (Cypher, shortest path, pathfinding); None for other answers."""
    data = json.loads(body).get("data") if status == 200 else None
    nodes = data.get("nodes") if isinstance(data, dict) else None
    return len(nodes) if isinstance(nodes, dict | list) else None


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def timed_rounds(url: str, token: str, users: int, rounds: int, only: list[str] | None
                       ) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, int | None]]:
    """Each query's timings, the load average at each, and the nodes of its last answer."""
    timings: dict[str, list[float]] = {}
    loads: dict[str, list[float]] = {}
    sizes: dict[str, int | None] = {}
    connection = await Connection.open(url)
    try:
        for _ in range(rounds):
            for name, method, path, payload in queries(users):
                if only and not any(text in name for text in only):
                    continue
                body = json.dumps(payload).encode() if payload is not None else b""
                headers = {"Authorization": f"Bearer {token}"}
                if payload is not None:
                    headers["Content-Type"] = "application/json"
                started = time.perf_counter()
                status = await connection.request(method, path, headers, body)
                timings.setdefault(name, []).append(time.perf_counter() - started)
                loads.setdefault(name, []).append(os.getloadavg()[0])
                sizes[name] = answer_size(status, connection.body)
                if status not in (200, 404):
                    print(f"  {name}: {status} {connection.body[:200]!r}")
    finally:
        connection.close()
    return timings, loads, sizes


@contextmanager
def database(keep: Path | None) -> Iterator[Database]:
    """A migrated database: kept in `keep` when given (and reused), else thrown away at the end."""
    if keep is None:
        with throwaway_database("hg-httpq-") as db:
            yield db
        return
    db = Database.open(Settings(data_dir=keep))
    try:
        db.migrate()
        yield db
    finally:
        db.close()


def path_projection(db: Database, url: str, token: str, data_dir: Path, seconds: float = 300) -> str:
    """Ask for a shortest path once (a search asks for the copy of the edges it did not find), wait until the copy
    is published in `data_dir`, so that the timed rounds search it, and tell its size."""
    started = time.perf_counter()
    httpx.get(f"{url}/api/v2/graphs/shortest-path", params={"start_node": DOMAIN_ADMINS, "end_node": DOMAIN_ADMINS},
              headers={"Authorization": f"Bearer {token}"}, timeout=60)
    with db.connect_raw() as conn:
        row = conn.execute(EDGE_VERSION).fetchone()
    assert row is not None
    meta = data_dir / PROJECTION_DIRECTORY / str(row[0]) / META
    while not meta.exists():
        if time.perf_counter() - started > seconds:
            return f"path projection: none after {seconds:.0f} s; the rounds search in PostgreSQL"
        time.sleep(0.1)
    figures = json.loads(meta.read_text())
    return (f"path projection: {figures['bytes'] / max(figures['edges'], 1):.1f} bytes per edge "
            f"({figures['bytes'] / 2**20:,.0f} MiB), ready {time.perf_counter() - started:.1f} s after a first search")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=60000, help="60000 users make a 100k-node graph")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--only", nargs="+", help="only the queries whose names hold one of these texts")
    parser.add_argument("--keep", type=Path, help="keep the database here and reuse it when it holds a graph")
    args = parser.parse_args()
    print(machine())
    with database(args.keep) as db, tempfile.TemporaryDirectory(prefix="hg-httpq-data-") as data_dir:
        if graph_size(db)[0] == 0:
            build(db, args.users)
            run_script(db, TIERS, {"users": args.users})
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges")
        process, url = start_service(db.url, Path(data_dir), 1)
        try:
            token = httpx.post(f"{url}/api/v2/login", timeout=60, json={
                "login_method": "secret", "username": "admin", "secret": PASSWORD}).json()["data"]["session_token"]
            print(path_projection(db, url, token, Path(data_dir)))
            timings, loads, sizes = asyncio.run(timed_rounds(url, token, args.users, args.rounds, args.only))
        finally:
            process.terminate()
            process.wait(timeout=120)
    print(f"{'query':40} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'nodes':>6} {'load':>5}")
    for name, values in timings.items():
        p50, p90 = p50_p90(values)
        size = "" if sizes[name] is None else sizes[name]
        print(f"{name:40} {p50 * 1000:8.1f} {p90 * 1000:8.1f} {percentile(sorted(values), 0.99) * 1000:8.1f} "
              f"{size:>6} {statistics.mean(loads[name]):5.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
