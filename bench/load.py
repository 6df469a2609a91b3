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
import asyncio
import base64
import hashlib
import hmac
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psutil
from attack import AttackPlan, attacker_session, report_attack, run_attack
from synthetic import DOMAIN_SID, build, graph_size, machine, throwaway_database

from houndgraph.settings import usable_cpus

PASSWORD = "Load-Bench-Password-1!"
CREATE_EVERY = 17  # one request in 17 creates a saved query
CALIBRATION_SECONDS = 5.0


@dataclass(frozen=True)
class Credentials:
    session_token: str
    token_id: str
    token_key: str


@dataclass
class Plan:
    url: str
    credentials: Credentials
    mix: str
    users: int
    clients: int  # this process's clients
    first_client: int  # global index of its first one: even clients use the session, odd ones sign
    seconds: float
    trivial: bool = False  # only `/api/version`: the generator's own ceiling
    other_urls: tuple[str, ...] = ()  # more service processes: client i talks to the (i mod n)th of them all


@dataclass
class Outcome:
    timings: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Each timing's request, "METHOD /path": which requests make the tail.
    requests: list[str] = field(default_factory=list)
    elapsed: float = 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


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


def sign(key: str, method: str, uri: str, body: bytes) -> dict[str, str]:
    """The HMAC chain of BloodHound API tokens: key → method+URI → date to the hour → body."""
    request_date = datetime.now(UTC).isoformat()
    first = hmac.new(key.encode(), f"{method}{uri}".encode(), hashlib.sha256).digest()
    second = hmac.new(first, request_date[:13].encode(), hashlib.sha256).digest()
    signature = base64.b64encode(hmac.new(second, body, hashlib.sha256).digest()).decode()
    return {"RequestDate": request_date, "Signature": signature}


def issue_request(mix: str, users: int, number: int) -> tuple[str, str, dict | None]:
    """The `number`th request of a client."""
    if mix == "ui":
        user = f"{DOMAIN_SID}-{100000 + random.randint(1, users)}"
        return random.choice([
            ("GET", "/api/v2/self", None),
            ("GET", f"/api/v2/search?q=OBJECT{random.randint(1, users)}&type=User", None),
            ("POST", "/api/v2/graphs/cypher", {"query": "MATCH (n:User) WHERE n.enabled = true RETURN count(n)"}),
            ("GET", f"/api/v2/users/{user}", None),
        ])
    if number % CREATE_EVERY == CREATE_EVERY - 1:
        return ("POST", "/api/v2/saved-queries", {"name": f"load {uuid.uuid4()}", "description": "",
                                                  "query": "MATCH (n:Group) RETURN n LIMIT 10"})
    objectid = f"{DOMAIN_SID}-{100000 + random.randint(1, users)}"
    return random.choice([
        ("GET", "/api/v2/bloodhound-users-minimal", None),
        ("GET", "/api/v2/datapipe/status", None),
        ("GET", "/api/v2/saved-queries", None),
        ("GET", "/api/v2/config", None),
        ("GET", "/api/v2/self", None),
        ("POST", "/api/v2/graphs/cypher", {"query": f"MATCH (n:User) WHERE n.objectid = '{objectid}' RETURN n"}),
    ])


class Connection:
    """One kept-alive HTTP/1.1 connection, written for the benchmark: httpx's asyncio client costs the
    generator more CPU than the service spends answering (62 against 1000 requests/s on `/api/version`)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.body = b""

    @classmethod
    async def open(cls, url: str) -> Connection:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        return cls(*await asyncio.open_connection(host, int(port)))

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        """Sends a request and reads its answer: returns the status; the body is left in `self.body`."""
        lines = [f"{method} {path} HTTP/1.1", "Host: load", f"Content-Length: {len(body)}",
                 *(f"{name}: {value}" for name, value in headers.items())]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = {name.strip().lower(): value.strip()
                  for name, _, value in (line.partition(":") for line in head[1:] if line)}
        self.body = b""
        if "content-length" in fields:
            self.body = await self.reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await self.reader.readline()).strip(), 16):
                chunks.append((await self.reader.readexactly(size + 2))[:-2])
            await self.reader.readline()
            self.body = b"".join(chunks)
        if fields.get("connection", "").lower() == "close":
            self.close()
            self.reader, self.writer = await asyncio.open_connection(*self.writer.get_extra_info("peername")[:2])
        return int(head[0].split(" ", 2)[1])

    def close(self) -> None:
        self.writer.close()


async def client(plan: Plan, index: int, until: float, outcome: Outcome) -> None:
    credentials = plan.credentials
    signs = plan.mix == "issue" and index % 2 == 1
    session = {"Authorization": f"Bearer {credentials.session_token}"}
    number = random.randrange(CREATE_EVERY)  # clients do not all create at the same moment
    urls = [plan.url, *plan.other_urls]
    url = urls[index % len(urls)]
    connection = await Connection.open(url)
    try:
        while time.monotonic() < until:
            number += 1
            method, path, payload = (("GET", "/api/version", None) if plan.trivial
                                     else issue_request(plan.mix, plan.users, number))
            body = json.dumps(payload).encode() if payload is not None else b""
            headers = {"Content-Type": "application/json"} if payload is not None else {}
            if signs:
                headers |= {"Authorization": f"bhesignature {credentials.token_id}",
                            **sign(credentials.token_key, method, path, body)}
            else:
                headers |= session
            started = time.perf_counter()
            try:
                status = await connection.request(method, path, headers, body)
                if status not in (200, 201):
                    outcome.errors.append(f"{method} {path.split('?')[0]}: {status}")
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                outcome.errors.append(f"{method} {path.split('?')[0]}: {type(error).__name__}")
                connection.close()
                connection = await Connection.open(url)
            outcome.timings.append(time.perf_counter() - started)
            outcome.requests.append(f"{method} {path.split('?')[0]}")
    finally:
        connection.close()


async def drive(plan: Plan) -> Outcome:
    outcome = Outcome()
    started = time.monotonic()
    until = started + plan.seconds
    await asyncio.gather(*(client(plan, plan.first_client + i, until, outcome) for i in range(plan.clients)))
    outcome.elapsed = time.monotonic() - started
    return outcome


def run_plan(plan: Plan) -> Outcome:
    return asyncio.run(drive(plan))


def run(plan: Plan, processes: int) -> tuple[Outcome, float]:
    """The clients spread over `processes` processes; their timings merged, and the wall time."""
    shares = [plan.clients // processes + (1 if i < plan.clients % processes else 0) for i in range(processes)]
    plans, first = [], 0
    for share in shares:
        plans.append(Plan(**{**plan.__dict__, "clients": share, "first_client": first}))
        first += share
    started = time.monotonic()
    if processes == 1:
        outcomes = [run_plan(plans[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            outcomes = pool.map(run_plan, plans)
    merged = Outcome(elapsed=time.monotonic() - started)
    for outcome in outcomes:
        merged.timings += outcome.timings
        merged.errors += outcome.errors
        merged.requests += outcome.requests
    # The processes start at slightly different times: rate over the longest of their own runs.
    return merged, max(outcome.elapsed for outcome in outcomes)


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def report(label: str, outcome: Outcome, elapsed: float) -> None:
    ordered = sorted(outcome.timings)
    if not ordered:
        print(f"{label}: no requests")
        return
    print(f"{label}: {len(ordered) / elapsed:.1f} requests/s, p50 {percentile(ordered, 0.5) * 1000:.0f} ms, "
          f"p90 {percentile(ordered, 0.9) * 1000:.0f} ms, p99 {percentile(ordered, 0.99) * 1000:.0f} ms, "
          f"errors {len(outcome.errors)} of {len(ordered)} ({load_average()})")
    for line in sorted(set(outcome.errors))[:10]:
        print("  error:", line, f"×{outcome.errors.count(line)}")
    report_by_request(outcome)


def report_by_request(outcome: Outcome) -> None:
    """p50 and p99 of each kind of request, and its share of the slowest 1 %: where the tail comes from."""
    if len(outcome.requests) != len(outcome.timings):
        return
    tail = max(len(outcome.timings) // 100, 1)
    slowest = sorted(zip(outcome.timings, outcome.requests, strict=True), reverse=True)[:tail]
    in_tail = Counter(request for _, request in slowest)
    kinds: dict[str, list[float]] = {}
    for seconds, request in zip(outcome.timings, outcome.requests, strict=True):
        kinds.setdefault(request, []).append(seconds)
    for request, timings in sorted(kinds.items()):
        ordered = sorted(timings)
        print(f"  {request}: {len(ordered)} requests, p50 {percentile(ordered, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(ordered, 0.99) * 1000:.0f} ms, {in_tail[request]} of the slowest {len(slowest)}")


class CpuMeter:
    """CPU seconds spent by process trees (the service's, PostgreSQL's) between two readings: on a loaded
    machine, CPU per request says more than requests/s, which depend on what else runs."""

    def __init__(self, roots: dict[str, int]) -> None:
        self.roots = roots

    def read(self) -> dict[str, dict[int, float]]:
        reading: dict[str, dict[int, float]] = {}
        for label, pid in self.roots.items():
            root = psutil.Process(pid)
            reading[label] = {}
            for process in [root, *root.children(recursive=True)]:
                try:
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                reading[label][process.pid] = times.user + times.system
                if process is root:  # children gone since (a backend whose connection was closed) count here
                    reading[label][process.pid] += times.children_user + times.children_system
        return reading

    @staticmethod
    def spent(before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]) -> dict[str, float]:
        # A child gone since the first reading counts at the root with all its time, the part before that reading
        # included: that part is taken off (it was counted twice: PostgreSQL's figure passed the machine's cores).
        return {label: sum(seconds - before[label].get(pid, 0.0) for pid, seconds in after[label].items())
                - sum(seconds for pid, seconds in before[label].items() if pid not in after[label])
                for label in after}


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
