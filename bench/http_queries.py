"""Queries a user sends, timed over HTTP against `houndgraph serve` on the synthetic 100k-node graph.

    .venv/bin/python bench/http_queries.py [--users 60000] [--rounds 20]

One client, one request at a time: p50 and p90 of each query as a user meets it (authentication, the
request deadline, JSON out included), with the machine and load average.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

import httpx
from load import PASSWORD, start_service  # bench/load.py
from synthetic import DOMAIN_SID, arguments, build, graph_size, machine, p50_p90, throwaway_database

DOMAIN_ADMINS = f"{DOMAIN_SID}-512"


def queries(users: int) -> list[tuple[str, str, str, dict | None]]:
    user = f"{DOMAIN_SID}-{100000 + random.randint(1, users)}"
    return [
        ("shortest path user -> Domain Admins", "GET",
         f"/api/v2/graphs/shortest-path?start_node={user}&end_node={DOMAIN_ADMINS}", None),
        ("variable length from the filtered end", "POST", "/api/v2/graphs/cypher",
         {"query": "MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-512' RETURN p LIMIT 100"}),
        ("count enabled users", "POST", "/api/v2/graphs/cypher",
         {"query": "MATCH (n:User) WHERE n.enabled = true RETURN count(n)"}),
        ("user entity panel", "GET", f"/api/v2/users/{user}", None),
        ("search by name", "GET", f"/api/v2/search?q=OBJECT{random.randint(1, users)}&type=User", None),
    ]


def main() -> None:
    args = arguments(__doc__ or "")
    print(machine())
    with throwaway_database("hg-httpq-") as db, tempfile.TemporaryDirectory(prefix="hg-httpq-data-") as data_dir:
        build(db, args.users)
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges")
        process, url = start_service(db.url, Path(data_dir), 1)
        try:
            token = httpx.post(f"{url}/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                             "secret": PASSWORD}).json()["data"]["session_token"]
            timings: dict[str, list[float]] = {}
            with httpx.Client(base_url=url, timeout=120, headers={"Authorization": f"Bearer {token}"}) as http:
                for _ in range(args.rounds):
                    for name, method, path, body in queries(args.users):
                        started = time.perf_counter()
                        response = http.request(method, path, json=body)
                        timings.setdefault(name, []).append(time.perf_counter() - started)
                        if response.status_code not in (200, 404):
                            print(f"  {name}: {response.status_code} {response.text[:200]}")
        finally:
            process.terminate()
            process.wait(timeout=120)
    print(f"{'query':40} {'p50 ms':>8} {'p90 ms':>8}")
    for name, values in timings.items():
        p50, p90 = p50_p90(values)
        print(f"{name:40} {p50 * 1000:8.1f} {p90 * 1000:8.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
