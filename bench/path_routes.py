"""The shortest-path route one request at a time over HTTP, on a data directory `scale.py` filled and kept.

    .venv/bin/python bench/path_routes.py --data-dir DIR [--objects 1000000] [--rounds 200]

Starts `houndgraph serve` on DIR (which migrates it), waits for its copy of the edges in memory (unless
HOUNDGRAPH_PATH_PROJECTION is off: the searches then run in PostgreSQL) and prints its size, and times, in turn,
`GET /api/v2/self` and the shortest-path route from `scale.py`'s user to Domain Admins (no path in that
collection: 404) and to the top group of its group tree, as `scale.py` does after its upload, but without building
anything: p50, p90 and p99, the service's CPU per request (all its processes) and the load average. DIR must
hold the collection `scale.py` uploaded with the same `--objects` (the pairs are its layout's). The client is the
load benchmark's plain HTTP/1.1 connection, as in `http_queries.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

from http_queries import percentile  # bench/http_queries.py
from load_clients import Connection  # bench/load_clients.py
from processes import CpuMeter  # bench/processes.py
from scale import path_user, serve, wait_for_path_projection  # bench/scale.py
from sharphound_collection import DOMAIN_ADMINS, Layout  # bench/sharphound_collection.py


async def timed(url: str, token: str, path: str, rounds: int, meter: CpuMeter) -> tuple[list[float], float, int]:
    """Each request's seconds (after five untimed ones), the service's CPU per request, the last status."""
    connection = await Connection.open(url)
    try:
        headers = {"Authorization": f"Bearer {token}"}
        status = 0
        for _ in range(5):
            status = await connection.request("GET", path, headers, b"")
        before = meter.read()
        timings = []
        for _ in range(rounds):
            started = asyncio.get_running_loop().time()
            status = await connection.request("GET", path, headers, b"")
            timings.append(asyncio.get_running_loop().time() - started)
        return timings, CpuMeter.spent(before, meter.read())["service"] / rounds, status
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True, help="a data directory scale.py filled")
    parser.add_argument("--objects", type=int, default=1_000_000, help="the --objects scale.py was given")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    layout = Layout.of(args.objects)
    user = path_user(layout)
    routes = [
        ("self", "/api/v2/self"),
        ("shortest path user -> Domain Admins", f"/api/v2/graphs/shortest-path?start_node={user}"
                                                f"&end_node={DOMAIN_ADMINS}"),
        ("shortest path user -> top group", f"/api/v2/graphs/shortest-path?start_node={user}"
                                            f"&end_node={layout.group(0)}"),
    ]
    with tempfile.TemporaryDirectory(prefix="hg-path-routes-") as scratch, \
            serve(args.data_dir, Path(scratch) / "service.log") as (http, process):
        token = str(http.headers["Authorization"]).removeprefix("Bearer ")
        if os.environ.get("HOUNDGRAPH_PATH_PROJECTION", "true").lower() not in ("0", "false", "off", "no"):
            print("path projection:", wait_for_path_projection(http, args.data_dir, routes[1][1]))
        else:
            print("path projection: off (every search in PostgreSQL)")
        print(f"{'route':38} {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'CPU ms':>7} {'HTTP':>5} {'load':>5}")
        for name, path in routes:
            timings, cpu, status = asyncio.run(timed(str(http.base_url).rstrip("/"), token, path, args.rounds,
                                                     CpuMeter({"service": process.pid})))
            ordered = sorted(timings)
            print(f"{name:38} {percentile(ordered, 0.5) * 1000:7.1f} {percentile(ordered, 0.9) * 1000:7.1f} "
                  f"{percentile(ordered, 0.99) * 1000:7.1f} {cpu * 1000:7.2f} {status:5} {os.getloadavg()[0]:5.1f}")


if __name__ == "__main__":
    main()
