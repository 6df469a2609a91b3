"""The Cypher corpus of `tests/` at 100k objects: every query through the public Cypher route, timed.

    .venv/bin/python bench/corpus.py [--objects 100000] [--keep DIR] [--runs 1] [--match TEXT]

Writes bench/sharphound_collection.py's synthetic SharpHound collection, adds the domain's well-known groups and the
two SharpHound labs of ../shared/data (ADCS objects, real group nesting), ingests it all through the readers
and the graph store, runs the full analysis (Tier Zero tags, derived edges) and ANALYZE, then starts one
service process on that database (as bench/load.py does) and posts every query of the corpus to
`POST /api/v2/graphs/cypher`.
The corpus is read from the test modules that check its answers: the pre-built searches and the SpecterOps /
CompassSecurity library (tests/graph/cypher/test_library*.py), the lab corpus (test_corpus.py) and the UI's
pre-built searches (web/src/data/prebuilt.json, as tests/ui/test_prebuilt_queries.py reads it).

Prints each query's time (the best of `--runs`), the slowest ten, each error answer with its message, how many
take over 1 s, and the load average. `--keep DIR` keeps the database in DIR and reuses it on the next run (no
rebuild).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from ingest import ingest  # bench/ingest.py
from load import PASSWORD, start_service  # bench/load.py
from sharphound_collection import (  # bench/sharphound_collection.py
    ACCOUNT_OPERATORS,
    ADMINISTRATORS,
    DOMAIN,
    DOMAIN_ADMINS,
    DOMAIN_COMPUTERS,
    DOMAIN_SID,
    DOMAIN_USERS,
    ENTERPRISE_ADMINS,
    KEY_ADMINS,
    Layout,
    computers,
    write_collection,
)
from synthetic import machine  # bench/synthetic.py

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the test modules hold the corpus

LIMIT_SECONDS = 1.0


def corpus() -> list[tuple[str, str]]:
    """(where it comes from, query) for every distinct query of the corpus, in the test modules' order."""
    from tests.graph.cypher.test_corpus import CORPUS as LAB
    from tests.graph.cypher.test_library import CORPUS as PREBUILT
    from tests.graph.cypher.test_library_community import COMMUNITY
    from tests.ui.test_prebuilt_queries import PREBUILT as UI

    listed = [(f"prebuilt{i:02}", query) for i, (query, *_) in enumerate(PREBUILT)]
    listed += [(f"community{i:02}", query) for i, (query, *_) in enumerate(COMMUNITY)]
    listed += [(f"lab{i:03}", query) for i, (query, _) in enumerate(LAB)]
    listed += [(f"ui:{group['category']}", query["query"]) for group in UI for query in group["queries"]]
    seen: set[str] = set()
    return [(name, query) for name, query in listed if not (query in seen or seen.add(query))]


def well_known(layout: Layout, directory: Path) -> list[Path]:
    """What the synthetic collection leaves as bare ACE principals, written as SharpHound would: the domain's
    well-known groups with their members (Domain Admins, Domain Controllers, Protected Users, ...) and two
    domain controllers with unconstrained delegation, so that the corpus' Tier Zero questions have answers."""
    def group(objectid: str, name: str, members: list[tuple[str, str]]) -> dict[str, Any]:
        properties = {"name": f"{name}@{DOMAIN}", "domain": DOMAIN, "domainsid": DOMAIN_SID, "admincount": True,
                      "samaccountname": name.lower(), "highvalue": False}
        return {"ObjectIdentifier": objectid, "Properties": properties, "Aces": [], "IsDeleted": False,
                "IsACLProtected": False, "ContainedBy": None, "HasSIDHistory": [],
                "Members": [{"ObjectIdentifier": oid, "ObjectType": kind} for oid, kind in members]}

    users = [(layout.user(i), "User") for i in range(12)]
    # A leaf of the group tree: group 0 is its root, a member of which would make every user a Domain Admin.
    dcs = [(layout.computer(i), "Computer") for i in range(2)]
    groups = [
        group(DOMAIN_ADMINS, "DOMAIN ADMINS", [*users[:10], (layout.group(layout.groups - 1), "Group")]),
        group(ENTERPRISE_ADMINS, "ENTERPRISE ADMINS", users[10:12]),
        group(KEY_ADMINS, "KEY ADMINS", []),
        group(DOMAIN_USERS, "DOMAIN USERS", []),
        group(DOMAIN_COMPUTERS, "DOMAIN COMPUTERS", []),
        group(f"{DOMAIN_SID}-516", "DOMAIN CONTROLLERS", dcs),
        group(f"{DOMAIN_SID}-525", "PROTECTED USERS", users[:4]),
        group(ADMINISTRATORS, "ADMINISTRATORS", [(DOMAIN_ADMINS, "Group"), (ENTERPRISE_ADMINS, "Group")]),
        group(ACCOUNT_OPERATORS, "ACCOUNT OPERATORS", []),
    ]
    controllers = []
    for record, _ in zip(computers(layout), range(2), strict=False):
        record["Properties"] |= {"unconstraineddelegation": True, "isdc": True,
                                 "operatingsystem": "Windows Server 2022 Datacenter"}
        controllers.append(record)
    paths = []
    for kind, records in (("groups", groups), ("computers", controllers)):
        path = directory / f"20260101000001_wellknown_{kind}.json"
        meta = {"methods": 521215, "type": kind, "count": len(records), "version": 6}
        path.write_bytes(orjson.dumps({"data": records, "meta": meta}))
        paths.append(path)
    return paths


def labs() -> list[Path]:
    """The two SharpHound labs of ../shared/data (ADCS, GPOs, sessions, real well-known groups)."""
    from tests.labs import ADCS, TESTLAB

    return [*sorted(ADCS.glob("*.json")), *sorted(TESTLAB.glob("*.json"))]


def build(database: Database, objects: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hg-corpus-files-", dir="/tmp") as files:
        started = time.perf_counter()
        layout = Layout.of(objects)
        paths = [*write_collection(layout, Path(files)), *well_known(layout, Path(files)), *labs()]
        stats = ingest(database, paths, 20_000, sequential=False)
        print(f"ingested {objects:,} objects: {stats.nodes:,} nodes, {stats.edges:,} edges "
              f"in {time.perf_counter() - started:.1f} s")
    with database.connect_raw() as conn:
        report = run_analysis(conn)
        conn.commit()
        conn.execute("ANALYZE")
    print(f"analysed in {report.seconds:.1f} s")


def graph_size(database: Database) -> tuple[int, int]:
    with database.connect_raw() as conn:
        nodes = conn.execute("SELECT count(*) FROM node").fetchone()
        edges = conn.execute("SELECT count(*) FROM edge").fetchone()
    return (nodes[0] if nodes else 0), (edges[0] if edges else 0)


def time_queries(url: str, queries: list[tuple[str, str]], runs: int) -> list[tuple[float, str, str, str]]:
    """(seconds, name, outcome, query) per query: the best of `runs` posts."""
    token = httpx.post(f"{url}/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                     "secret": PASSWORD}).json()["data"]["session_token"]
    timed = []
    with httpx.Client(base_url=url, timeout=120, headers={"Authorization": f"Bearer {token}"}) as http:
        for name, query in queries:
            best, outcome = float("inf"), ""
            for _ in range(runs):
                started = time.perf_counter()
                response = http.post("/api/v2/graphs/cypher", json={"query": query})
                seconds = time.perf_counter() - started
                if seconds < best:
                    best, outcome = seconds, _outcome(response)
            timed.append((best, name, outcome, query))
            print(f"{best * 1000:9.1f} ms  {name:24} {_status(outcome):22} {_one_line(query)[:90]}", flush=True)
    return timed


def _outcome(response: httpx.Response) -> str:
    if response.status_code == 200:
        data = response.json().get("data") or {}
        if "nodes" in data:
            literals = len(data.get("literals") or [])
            return f"{len(data['nodes'])} nodes" + (f", {literals} lit." if literals else "")
        return f"{len(data.get('literals') or data.get('rows') or [])} rows"
    if response.status_code == 404:
        return "no results"
    errors = response.json().get("errors") or [{}]
    return f"HTTP {response.status_code}: {errors[0].get('message', '')}"


def _status(outcome: str) -> str:
    """The outcome without an error's message."""
    return outcome.split(":", 1)[0]


def _one_line(query: str) -> str:
    return " ".join(query.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1, help="posts per query; the best is kept")
    parser.add_argument("--keep", type=Path, help="keep the database here and reuse it when it holds a graph")
    parser.add_argument("--match", default="", help="only the queries whose name or text contains this")
    args = parser.parse_args()
    queries = [(name, query) for name, query in corpus() if args.match in name or args.match in query]
    print(f"{machine()}, load average {os.getloadavg()[0]:.2f}")
    print(f"corpus: {len(queries)} distinct queries")
    with tempfile.TemporaryDirectory(prefix="hg-corpus-", dir="/tmp") as scratch:
        data_dir = args.keep or Path(scratch)
        database = Database.open(Settings(data_dir=data_dir))
        try:
            database.migrate()
            if graph_size(database)[0] == 0:
                build(database, args.objects)
            nodes, edges = graph_size(database)
            print(f"graph: {nodes:,} nodes, {edges:,} edges")
            process, url = start_service(database.url, data_dir / "service", workers=1)
            try:
                load_before = os.getloadavg()
                timed = time_queries(url, queries, args.runs)
                load_after = os.getloadavg()
            finally:
                process.terminate()
                process.wait(timeout=120)
        finally:
            database.close()
    report(timed, load_before, load_after)


def report(timed: list[tuple[float, str, str, str]], load_before: tuple[float, ...],
           load_after: tuple[float, ...]) -> None:
    timed.sort(reverse=True)
    print("\nslowest ten:")
    for seconds, name, outcome, query in timed[:10]:
        print(f"{seconds * 1000:9.1f} ms  {name:24} {_status(outcome):22} {_one_line(query)[:90]}")
    over = [t for t in timed if t[0] > LIMIT_SECONDS]
    failed = [t for t in timed if t[2].startswith("HTTP")]
    total = sum(t[0] for t in timed)
    if failed:
        print("\nerror answers:")
        for seconds, name, outcome, _ in sorted(failed, key=lambda t: t[1]):
            print(f"{seconds * 1000:9.1f} ms  {name:24} {outcome}")
    print(f"\n{len(timed)} queries, {total:.1f} s in all; {len(over)} over {LIMIT_SECONDS:.0f} s; "
          f"{len(failed)} answered with an error status")
    print(f"load average (1, 5, 15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load_after)}")


if __name__ == "__main__":
    main()
