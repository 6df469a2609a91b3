"""Graph view latency on the synthetic 100k-node AD graph of bench/synthetic.py: p50 / p90 per operation.

    .venv/bin/python bench/views.py [--users 60000] [--rounds 20]

Adds to that graph a Domain node (every node gets its `domainsid`) and one group with 10 000 direct user
members, then times each operation through its service function, in a request-like transaction
bounded by a 30 s statement timeout (what `Prefer: wait=30` gives a request): the entity panels with
all their counts, related-list pages, shortest path, deprecated pathfinding, search, available domains.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from synthetic import DOMAIN_SID, arguments, build, graph_size, machine, p50_p90, run_script, throwaway_database

from houndgraph.db import Database
from houndgraph.entity import service as entity_service
from houndgraph.entity.ad_panels import ENTITIES
from houndgraph.pathfinding import service as path_service
from houndgraph.search import service as search_service

BIG_GROUP = f"{DOMAIN_SID}-BIG"
EXTRA = f"""
INSERT INTO kind (name) VALUES ('Domain') ON CONFLICT DO NOTHING;
UPDATE node SET properties = properties || '{{"domainsid": "{DOMAIN_SID}"}}';
INSERT INTO node (kind_ids, properties) SELECT ARRAY[(SELECT id FROM kind WHERE name = 'Base'),
  (SELECT id FROM kind WHERE name = 'Domain')], '{{"objectid": "{DOMAIN_SID}", "name": "BENCH.LOCAL",
  "domainsid": "{DOMAIN_SID}", "collected": true}}';
INSERT INTO node (kind_ids, properties) SELECT ARRAY[(SELECT id FROM kind WHERE name = 'Base'),
  (SELECT id FROM kind WHERE name = 'Group')], '{{"objectid": "{BIG_GROUP}", "name": "BIG@BENCH.LOCAL",
  "domainsid": "{DOMAIN_SID}"}}';
INSERT INTO edge (start_id, end_id, kind_id) SELECT u, (SELECT id FROM node WHERE properties->>'objectid' =
  '{BIG_GROUP}'), (SELECT id FROM kind WHERE name = 'MemberOf') FROM generate_series(1, 10000) AS u
  ON CONFLICT DO NOTHING;
ANALYZE node; ANALYZE edge
"""

Operation = Callable[[Any, int], Awaitable[Any]]


def _request(query: str) -> Request:
    return Request({"type": "http", "query_string": query.encode(), "headers": []})


def operations(users: int) -> dict[str, Operation]:
    rng = random.Random(11)
    user = [f"{DOMAIN_SID}-{100000 + rng.randint(1, users)}" for _ in range(50)]
    computer = [f"{DOMAIN_SID}-{100000 + users + rng.randint(1, users // 3)}" for _ in range(50)]
    da = f"{DOMAIN_SID}-512"
    page = entity_service.parse_list_request({}, [])

    def info(slug: str, oids: list[str]) -> Operation:
        return lambda s, i: entity_service.entity_info(s, ENTITIES[slug], oids[i % len(oids)], {})

    def listing(slug: str, rel: str, oids: list[str]) -> Operation:
        relation = ENTITIES[slug].relation(rel)
        assert relation is not None
        return lambda s, i: entity_service.related(s, ENTITIES[slug], relation, oids[i % len(oids)], page)

    return {
        "group panel, 10k direct members (all counts)": info("groups", [BIG_GROUP]),
        "group members list, 10k members (page 1)": listing("groups", "members", [BIG_GROUP]),
        "user panel (all counts)": info("users", user),
        "computer panel (all counts)": info("computers", computer),
        "user memberships list": listing("users", "memberships", user),
        "domain panel (all counts)": info("domains", [DOMAIN_SID]),
        "shortest path user -> Domain Admins": lambda s, i: path_service.shortest_path(
            s, QueryParams({"start_node": user[i % 50], "end_node": da})),
        "pathfinding (deprecated) user -> Domain Admins": lambda s, i: path_service.pathfinding(
            s, QueryParams({"start_node": user[i % 50], "end_node": da})),
        "search 'OBJECT12' (fuzzy)": lambda s, i: search_service.search(s, QueryParams({"q": f"OBJECT1{i % 9}"})),
        "available domains": lambda s, i: search_service.available_domains(s, _request("")),
    }


async def measure(db: Database, operation: Operation, rounds: int) -> list[float]:
    timings = []
    for i in range(rounds):
        start = time.perf_counter()
        async with db.session(30) as session:
            try:
                await operation(session, i)
            except Exception as error:  # a 404 (no path) is an answer too; it is timed like any other
                if getattr(error, "status", 500) >= 500:
                    raise
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    with throwaway_database("hgv-") as db:
        started = time.perf_counter()
        build(db, args.users)
        run_script(db, EXTRA)
        nodes, edges = graph_size(db)
        print(machine())
        print(f"graph: {nodes} nodes, {edges} edges, built in {time.perf_counter() - started:.1f} s\n")
        print(f"{'operation':50} {'p50 ms':>9} {'p90 ms':>9}")
        for name, operation in operations(args.users).items():
            asyncio.run(measure(db, operation, 2))  # warm the buffer cache
            p50, p90 = p50_p90(asyncio.run(measure(db, operation, args.rounds)))
            print(f"{name:50} {p50:9.1f} {p90:9.1f}")


if __name__ == "__main__":
    main()
