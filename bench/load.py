"""Concurrent load on the service over HTTP: requests/s, p50, p99 and errors.

    .venv/bin/python bench/load.py [--users 60000] [--clients 50] [--seconds 30]

Builds the synthetic 100k-object graph of bench/synthetic.py (plus the Domain node and big group of
bench/views.py), starts `houndgraph serve` on a loopback port against that database, and runs
`--clients` concurrent clients for `--seconds`, each cycling through a mix of requests: the caller's
own user (`/api/v2/self`), search, Cypher counts and entity panels with their counts. Any answer other
than the expected one (200, or 404 for a search with no hit) counts as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
from synthetic import DOMAIN_SID, build, graph_size, machine, run_script, throwaway_database
from views import BIG_GROUP, EXTRA

PASSWORD = "Bench-Admin-Password-1!"


def requests(users: int) -> list[tuple[str, str, dict[str, str] | None]]:
    """(method, path, JSON body) of the mix, in the order each client cycles through them."""
    rng = random.Random(7)
    user = [f"{DOMAIN_SID}-{100000 + rng.randint(1, users)}" for _ in range(20)]
    computer = [f"{DOMAIN_SID}-{100000 + users + rng.randint(1, users // 3)}" for _ in range(20)]
    mix: list[tuple[str, str, dict[str, str] | None]] = []
    for i in range(20):
        mix += [
            ("GET", "/api/v2/self", None),
            ("GET", f"/api/v2/search?q=OBJECT1{i % 9}", None),
            ("POST", "/api/v2/graphs/cypher", {"query": "MATCH (n:User) RETURN count(n)"}),
            ("POST", "/api/v2/graphs/cypher",
             {"query": f"MATCH (g:Group)<-[:MemberOf]-(n) WHERE g.objectid = '{BIG_GROUP}' RETURN count(n)"}),
            ("GET", f"/api/v2/users/{user[i]}?counts=true", None),
            ("GET", f"/api/v2/computers/{computer[i]}?counts=true", None),
            ("GET", f"/api/v2/groups/{BIG_GROUP}?counts=true", None),
        ]
    return mix


def start_service(database_url: str, data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOUNDGRAPH_DATABASE_URL": database_url, "HOUNDGRAPH_DATA_DIR": str(data_dir),
           "HOUNDGRAPH_PORT": str(port), "HOUNDGRAPH_ADMIN_PASSWORD": PASSWORD, "HOUNDGRAPH_LOG_LEVEL": "warning"}
    process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/version", timeout=2).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError("the service did not start")


async def client(http: httpx.AsyncClient, mix: list[tuple[str, str, dict[str, str] | None]], offset: int,
                 until: float, timings: list[float], errors: Counter[str]) -> None:
    i = offset
    while time.monotonic() < until:
        method, path, body = mix[i % len(mix)]
        i += 1
        started = time.perf_counter()
        try:
            response = await http.request(method, path, json=body)
            ok = response.status_code == 200 or (response.status_code == 404 and "search" in path)
            if not ok:
                errors[f"{response.status_code} {method} {path.split('?')[0]}"] += 1
        except httpx.HTTPError as error:
            errors[type(error).__name__] += 1
        timings.append((time.perf_counter() - started) * 1000)


async def load(base_url: str, mix: list[tuple[str, str, dict[str, str] | None]], clients: int,
               seconds: float) -> tuple[list[float], Counter[str], float]:
    async with httpx.AsyncClient(base_url=base_url, timeout=120,
                                 limits=httpx.Limits(max_connections=clients)) as http:
        response = await http.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                          "secret": PASSWORD})
        http.headers["Authorization"] = f"Bearer {response.json()['data']['session_token']}"
        for method, path, body in mix[:7]:  # warm caches and the connection pool
            await http.request(method, path, json=body)
        timings: list[float] = []
        errors: Counter[str] = Counter()
        started = time.monotonic()
        await asyncio.gather(*(client(http, mix, n * 3, started + seconds, timings, errors)
                               for n in range(clients)))
        return timings, errors, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=60000, help="60000 users make a 100k-node graph")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--port", type=int, default=18411)
    args = parser.parse_args()
    with throwaway_database("hgl-") as db, tempfile.TemporaryDirectory(prefix="hgl-data-", dir="/tmp") as data:
        build(db, args.users)
        run_script(db, EXTRA)
        nodes, edges = graph_size(db)
        service = start_service(db.url, Path(data), args.port)
        try:
            timings, errors, elapsed = asyncio.run(
                load(f"http://127.0.0.1:{args.port}", requests(args.users), args.clients, args.seconds))
        finally:
            service.terminate()
            service.wait(timeout=60)
    print(machine())
    print(f"graph: {nodes} nodes, {edges} edges; {args.clients} clients for {elapsed:.1f} s")
    p99 = statistics.quantiles(timings, n=100)[-1] if len(timings) > 1 else timings[0]
    print(f"requests: {len(timings)}  requests/s: {len(timings) / elapsed:.1f}  "
          f"p50: {statistics.median(timings):.1f} ms  p99: {p99:.1f} ms  errors: {sum(errors.values())}")
    for what, count in errors.most_common():
        print(f"  {count:6}  {what}")


if __name__ == "__main__":
    main()
