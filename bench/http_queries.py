"""Queries a user sends, timed over HTTP against `houndgraph serve` on the synthetic 100k-node graph.

    .venv/bin/python bench/http_queries.py [--users 60000] [--rounds 20]

One client, one request at a time, the queries taking turns: p50 and p90 of each query as a user meets it
(authentication, the request deadline, JSON out included), the nodes in its last answer, and the load
average while it ran. Path searches: one user to Domain Admins (the shortest-path route, which answers
every shortest path, the legacy pathfinding route, Cypher shortestPath and allShortestPaths), and many
sources to one target or to Tier Zero (all enabled users, and the pre-built searches of the explorer).
Before the timed rounds, Domain Admins and a few computers are tagged Tier Zero and a few users Owned,
as the analysis and a user would.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from load import PASSWORD, start_service  # bench/load.py
from synthetic import (
    DOMAIN_SID,
    arguments,
    build,
    graph_size,
    machine,
    p50_p90,
    run_script,
    throwaway_database,
)

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


def answer_size(response: httpx.Response) -> int | None:
    """Nodes in a graph answer (Cypher, shortest path, pathfinding); None for other answers."""
    data = response.json().get("data") if response.status_code == 200 else None
    nodes = data.get("nodes") if isinstance(data, dict) else None
    return len(nodes) if isinstance(nodes, dict | list) else None


def main() -> None:
    args = arguments(__doc__ or "")
    print(machine())
    with throwaway_database("hg-httpq-") as db, tempfile.TemporaryDirectory(prefix="hg-httpq-data-") as data_dir:
        build(db, args.users)
        run_script(db, TIERS, {"users": args.users})
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges")
        process, url = start_service(db.url, Path(data_dir), 1)
        try:
            token = httpx.post(f"{url}/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                             "secret": PASSWORD}).json()["data"]["session_token"]
            timings: dict[str, list[float]] = {}
            loads: dict[str, list[float]] = {}
            sizes: dict[str, int | None] = {}
            with httpx.Client(base_url=url, timeout=120, headers={"Authorization": f"Bearer {token}"}) as http:
                for _ in range(args.rounds):
                    for name, method, path, body in queries(args.users):
                        started = time.perf_counter()
                        response = http.request(method, path, json=body)
                        timings.setdefault(name, []).append(time.perf_counter() - started)
                        loads.setdefault(name, []).append(os.getloadavg()[0])
                        sizes[name] = answer_size(response)
                        if response.status_code not in (200, 404):
                            print(f"  {name}: {response.status_code} {response.text[:200]}")
        finally:
            process.terminate()
            process.wait(timeout=120)
    print(f"{'query':40} {'p50 ms':>8} {'p90 ms':>8} {'nodes':>6} {'load':>5}")
    for name, values in timings.items():
        p50, p90 = p50_p90(values)
        size = "" if sizes[name] is None else sizes[name]
        print(f"{name:40} {p50 * 1000:8.1f} {p90 * 1000:8.1f} {size:>6} {statistics.mean(loads[name]):5.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
