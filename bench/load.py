"""Load: N concurrent clients for S seconds against `houndgraph serve` on the synthetic 100k-node graph.

    .venv/bin/python bench/load.py [--users 60000] [--clients 50] [--seconds 30] [--workers 1]

The service runs as its own process (`houndgraph serve`, on the bench graph's throwaway database); the
clients, in this process, mix what a UI session does: `/api/v2/self`, search, a Cypher count and user
entity panels. Prints requests/s, p50 and p99 latency and the number of errors (any status but 200).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from synthetic import DOMAIN_SID, arguments, build, graph_size, machine, throwaway_database

PASSWORD = "Load-Bench-Password-1!"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_service(database_url: str, data_dir: Path, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "HOUNDGRAPH_DATABASE_URL": database_url, "HOUNDGRAPH_DATA_DIR": str(data_dir),
           "HOUNDGRAPH_PORT": str(port), "HOUNDGRAPH_ADMIN_PASSWORD": PASSWORD, "HOUNDGRAPH_LOG_LEVEL": "warning"}
    process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve", "--workers", str(workers)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/v2/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the service did not start")


def requests_mix(users: int) -> list[tuple[str, str, dict | None]]:
    user = f"{DOMAIN_SID}-{100000 + random.randint(1, users)}"
    return [
        ("GET", "/api/v2/self", None),
        ("GET", f"/api/v2/search?q=OBJECT{random.randint(1, users)}&type=User", None),
        ("POST", "/api/v2/graphs/cypher", {"query": "MATCH (n:User) WHERE n.enabled = true RETURN count(n)"}),
        ("GET", f"/api/v2/users/{user}", None),
    ]


async def client(url: str, token: str, users: int, until: float, timings: list[float], errors: list[str]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120, headers={"Authorization": f"Bearer {token}"}) as http:
        while time.monotonic() < until:
            method, path, body = random.choice(requests_mix(users))
            started = time.perf_counter()
            try:
                response = await http.request(method, path, json=body)
                if response.status_code != 200:
                    errors.append(f"{method} {path}: {response.status_code}")
            except httpx.HTTPError as error:
                errors.append(f"{method} {path}: {type(error).__name__}")
            timings.append(time.perf_counter() - started)


async def load(url: str, token: str, users: int, clients: int, seconds: float) -> tuple[list[float], list[str]]:
    timings: list[float] = []
    errors: list[str] = []
    until = time.monotonic() + seconds
    await asyncio.gather(*(client(url, token, users, until, timings, errors) for _ in range(clients)))
    return timings, errors


def main() -> None:
    import argparse

    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--clients", type=int, default=50)
    extra.add_argument("--seconds", type=float, default=30)
    extra.add_argument("--workers", type=int, default=1)
    options, rest = extra.parse_known_args()
    sys.argv = [sys.argv[0], *rest]
    args = arguments(__doc__ or "")
    print(machine())
    with throwaway_database("hg-load-") as db, tempfile.TemporaryDirectory(prefix="hg-load-data-") as data_dir:
        build(db, args.users)
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges")
        process, url = start_service(db.url, Path(data_dir), options.workers)
        try:
            token = httpx.post(f"{url}/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                             "secret": PASSWORD}).json()["data"]["session_token"]
            started = time.monotonic()
            timings, errors = asyncio.run(load(url, token, args.users, options.clients, options.seconds))
            elapsed = time.monotonic() - started
        finally:
            process.terminate()
            process.wait(timeout=120)
    timings.sort()
    p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
    print(f"{options.clients} clients, {options.seconds:.0f} s, {options.workers} worker(s): "
          f"{len(timings) / elapsed:.1f} requests/s, p50 {statistics.median(timings) * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms, errors {len(errors)} of {len(timings)}")
    for line in sorted(set(errors))[:10]:
        print("  error:", line)


if __name__ == "__main__":
    main()
