"""The load benchmark's clients (`load.py`): each client's requests (the issue mix or the ui mix, half the clients
signing them with an API token), a kept-alive HTTP/1.1 connection written for the benchmark, the clients spread
over processes with their timings merged, and the report: requests/s, p50, p90 and p99, and by kind of request."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import multiprocessing
import os
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from synthetic import DOMAIN_SID  # bench/synthetic.py

CREATE_EVERY = 17  # one request in 17 creates a saved query


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


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


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
