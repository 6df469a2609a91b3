"""Load: many concurrent clients against `houndgraph serve` on the synthetic 100k-node graph.

    .venv/bin/python bench/load.py [--users 60000] [--clients 50] [--seconds 30] [--workers N]
                                   [--processes 2] [--mix issue|ui] [--attack [N] | --replica] [--service-log FILE]

The service runs as its own process (`houndgraph serve`, on the bench graph's throwaway database; without
`--workers`, its default: one worker per core). The clients run in `--processes` processes of their own
(asyncio in each), and their timings are merged.

`--mix issue` (the default) is issue #14's: each client loops over `bloodhound-users-minimal`,
`datapipe/status`, `saved-queries`, `config`, `self` and a small Cypher query; one request in 17 creates a
saved query (unique name). Half the clients send the administrator's session token (JWT bearer), half sign
every request with an API token (HMAC). `--mix ui` is the older mix: `self`, search, a Cypher count and user
entity panels, all with the session token.

`--attack` runs the clients twice on the same service: alone, then beside the attack mix of `bench/attack.py`
(N clients of each kind: failed logins, slow Cypher, a heavy reader; default 8), and reports both.

`--replica` compares one service process on the primary alone with two service processes (data directories of
their own, as two hosts) that read the graph from a streaming replica: a real primary and hot standby made with the
embedded server's binaries (`tests/replication.py`). The clients alternate between the two processes' ports. The
graph scans the replica served are printed, to show where the reads went. `--mix ui` (mostly graph reads) is the
mix this comparison is about.

First the clients drive the public `/api/version` for a few seconds: what the generator itself can reach on
this machine, so a figure below it is the service's. Prints requests/s, p50, p90, p99, errors, the worker
count and the load average, then the CPU time the service (all its processes) and PostgreSQL spent per
request: on a shared machine that figure moves much less than requests/s.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
from attack import AttackPlan, attacker_session, report_attack, run_attack
from load_clients import Credentials, Outcome, Plan, report, run  # bench/load_clients.py
from processes import CpuMeter  # bench/processes.py
from synthetic import build, graph_size, machine, throwaway_database

from houndgraph.settings import usable_cpus

PASSWORD = "Load-Bench-Password-1!"
CALIBRATION_SECONDS = 5.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_service(database_url: str, data_dir: Path, workers: int | None, log: Path | None = None,
                  **extra_env: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "HOUNDGRAPH_DATABASE_URL": database_url, "HOUNDGRAPH_DATA_DIR": str(data_dir),
           "HOUNDGRAPH_PORT": str(port), "HOUNDGRAPH_ADMIN_PASSWORD": PASSWORD, "HOUNDGRAPH_LOG_LEVEL": "warning",
           **extra_env}
    command = [sys.executable, "-m", "houndgraph.cli", "serve"]
    if workers is not None:
        command += ["--workers", str(workers)]
    # The service's log (its warnings and the exceptions behind any 500) goes to `log` when one is named.
    output = log.open("ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, env=env, stdout=output, stderr=output)
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


def credentials_for(url: str) -> Credentials:
    with httpx.Client(base_url=url, timeout=60) as http:
        login = http.post("/api/v2/login", json={"login_method": "secret", "username": "admin", "secret": PASSWORD})
        session_token = login.json()["data"]["session_token"]
        http.headers["Authorization"] = f"Bearer {session_token}"
        self_id = http.get("/api/v2/self").json()["data"]["id"]
        token = http.post("/api/v2/tokens", json={"token_name": "load", "user_id": self_id}).json()["data"]
    return Credentials(session_token, str(token["id"]), token["key"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=60000, help="60000 users make a 100k-node graph")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=None, help="the service's worker processes "
                        "(default: the service's own default, one per core)")
    parser.add_argument("--processes", type=int, default=2, help="processes the clients run in")
    parser.add_argument("--mix", choices=("issue", "ui"), default="issue")
    parser.add_argument("--attack", type=int, nargs="?", const=8, default=0,
                        help="also run beside the attack mix, this many clients of each kind (default 8)")
    parser.add_argument("--service-log", type=Path, default=None,
                        help="append the service's log (warnings, and the exception behind any 500) to this file")
    parser.add_argument("--replica", action="store_true",
                        help="one process on the primary alone against two processes reading from a streaming replica")
    args = parser.parse_args()
    # A SIGTERM ends the run through the `finally` blocks: the service stops, the throwaway database goes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    print(machine())
    if args.replica:
        compare_with_replica(args)
        return
    with throwaway_database("hg-load-") as db, tempfile.TemporaryDirectory(prefix="hg-load-data-") as data_dir:
        build(db, args.users)
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges")
        process, url = start_service(db.url, Path(data_dir), args.workers, args.service_log)
        try:
            plan = Plan(url, credentials_for(url), args.mix, args.users, args.clients, 0, args.seconds)
            calibration = Plan(**{**plan.__dict__, "seconds": CALIBRATION_SECONDS, "trivial": True})
            report(f"generator ceiling, {args.clients} clients on GET /api/version in {args.processes} "
                   "process(es)", *run(calibration, args.processes))
            meter = CpuMeter({"service": process.pid, "PostgreSQL": db.embedded.get_pid()})
            before = meter.read()
            outcome, elapsed = run(plan, args.processes)
            cpu = CpuMeter.spent(before, meter.read())
            if args.attack:
                before = meter.read()
                attacked, attacked_elapsed, answered = run_beside_attack(plan, args.processes, args.attack)
                attack_cpu = CpuMeter.spent(before, meter.read())
        finally:
            process.terminate()
            process.wait(timeout=120)
    workers = args.workers if args.workers is not None else f"default ({usable_cpus()})"
    report(f"{args.mix} mix, {args.clients} clients, {args.seconds:.0f} s, {workers} worker(s)", outcome, elapsed)
    requests = max(len(outcome.timings), 1)
    print("CPU per request: " + ", ".join(f"{label} {seconds / requests * 1000:.2f} ms"
                                          for label, seconds in cpu.items()))
    if args.attack:
        report(f"{args.mix} mix beside the attack mix ({args.attack} clients of each kind)", attacked,
               attacked_elapsed)
        report_attack(answered)
        print("CPU during the attack (service, PostgreSQL: all backends, the attackers' included): " + ", ".join(
            f"{label} {seconds:.1f} s" for label, seconds in attack_cpu.items()) + f" in {attacked_elapsed:.0f} s")


def compare_with_replica(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from houndgraph.db import Database
    from tests.replication import StreamingCluster

    cluster = StreamingCluster()
    db = Database(url=cluster.primary.url())
    try:
        db.migrate()
        build(db, args.users)
        nodes, edges = graph_size(db)
        print(f"graph: {nodes} nodes, {edges} edges; primary and streaming replica in {cluster.folder}")
        cluster.wait_for_streaming()
        shared = {"HOUNDGRAPH_SECRET_KEY": "b" * 48, "HOUNDGRAPH_DATAPIPE_INTERVAL": "2"}
        with tempfile.TemporaryDirectory(prefix="hg-load-hosts-") as hosts:
            folders = [Path(hosts) / name for name in ("alone", "host-a", "host-b")]
            for folder in folders:
                folder.mkdir()
            process, url = start_service(db.url, folders[0], args.workers, **shared)
            try:
                plan = Plan(url, credentials_for(url), args.mix, args.users, args.clients, 0, args.seconds)
                alone, alone_elapsed = run(plan, args.processes)
            finally:
                process.terminate()
                process.wait(timeout=120)
            replicated = {**shared, "HOUNDGRAPH_READ_DATABASE_URL": cluster.replica.url()}
            started = [start_service(db.url, folder, args.workers, **replicated) for folder in folders[1:]]
            try:
                urls = [url for _, url in started]
                plan = Plan(urls[0], credentials_for(urls[0]), args.mix, args.users, args.clients, 0, args.seconds,
                            other_urls=tuple(urls[1:]))
                scans = replica_graph_scans(cluster.replica.conninfo())
                two, two_elapsed = run(plan, args.processes)
                scans = replica_graph_scans(cluster.replica.conninfo()) - scans
            finally:
                for process, _ in started:
                    process.terminate()
                for process, _ in started:
                    process.wait(timeout=120)
    finally:
        db.close()
        cluster.close()
    workers = args.workers if args.workers is not None else f"default ({usable_cpus()})"
    report(f"{args.mix} mix, {args.clients} clients, {args.seconds:.0f} s: one process ({workers} worker(s)) on the "
           "primary alone", alone, alone_elapsed)
    report(f"{args.mix} mix, {args.clients} clients, {args.seconds:.0f} s: two processes ({workers} worker(s) each) "
           "reading from the replica", two, two_elapsed)
    print(f"graph-table scans the replica served during the second run: {scans} (statistics reach it within ~10 s "
          "of a backend going idle: a lower bound)")


def replica_graph_scans(replica_conninfo: str) -> int:
    import psycopg

    with psycopg.connect(replica_conninfo, autocommit=True) as conn:
        row = conn.execute("SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) "
                           "FROM pg_stat_user_tables WHERE relname IN ('node', 'edge')").fetchone()
    return int(row[0]) if row else 0


def run_beside_attack(plan: Plan, processes: int, per_kind: int) -> tuple[Outcome, float, Counter[str]]:
    """The normal clients again, with the attack mix running in a process of its own for the same time."""
    attack = AttackPlan(plan.url, attacker_session(plan.url, plan.credentials.session_token), per_kind,
                        plan.seconds + 2)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        attacking = pool.apply_async(run_attack, (attack,))
        time.sleep(1)  # the attack under way before the clients measure
        outcome, elapsed = run(plan, processes)
        answered = attacking.get()
    return outcome, elapsed, answered


if __name__ == "__main__":
    main()
