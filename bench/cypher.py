"""Cypher latency on a synthetic AD graph: p50 / p90 per query class.

    .venv/bin/python bench/cypher.py [--users 60000] [--rounds 20]

Builds the synthetic graph of bench/synthetic.py in a throw-away embedded PostgreSQL, then times each
query class end to end (parse, translate, BFS, execute, load entities).
"""

from __future__ import annotations

import asyncio
import random
import time

import psycopg
from synthetic import DOMAIN_SID, arguments, build, graph_size, machine, p50_p90, throwaway_database

from houndgraph.db import Database
from houndgraph.graph.cypher.execute import run_query

TRAVERSABLE = "MemberOf|AdminTo|HasSession|GenericAll|GenericWrite|WriteDacl|Owns"

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
    args = arguments(__doc__.splitlines()[0])
    with throwaway_database("hgb-") as db:
        started = time.perf_counter()
        build(db, args.users)
        nodes, edges = graph_size(db)
        print(machine())
        print(f"graph: {nodes} nodes, {edges} edges, built in {time.perf_counter() - started:.1f} s\n")
        print(f"{'query class':45} {'p50 ms':>9} {'p90 ms':>9}")
        for name, texts in queries(args.users).items():
            asyncio.run(measure(db, texts, 2))  # warm the parse cache and the buffer cache
            p50, p90 = p50_p90(asyncio.run(measure(db, texts, args.rounds)))
            print(f"{name:45} {p50:9.1f} {p90:9.1f}")


if __name__ == "__main__":
    main()
