"""The attack mix `bench/load.py --attack` runs beside its normal clients, from one address, as one attacker:

- failed logins: clients sending made-up names with a wrong password (the per-address pace answers most);
- slow Cypher: clients of one Read-Only user sending a query that runs until the request's deadline;
- a heavy reader: clients of that same user asking for large answers back to back.

It reports what the attackers were answered (by status); the normal clients' timings are what matter."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass

import httpx

ATTACKER_PASSWORD = "Attacker-Bench-Password-1!"
# A cross product of every user with every user: it runs until the deadline (or its cancellation).
SLOW_QUERY = "MATCH (a:User), (b:User) WHERE a.name < b.name RETURN count(*)"
HEAVY_QUERY = "MATCH (n:User) RETURN n LIMIT 2000"
KINDS = ("failed login", "slow cypher", "heavy reader")


@dataclass(frozen=True)
class AttackPlan:
    url: str
    reader_token: str  # the Read-Only attacker's session
    clients_per_kind: int
    seconds: float


def attacker_session(url: str, admin_token: str) -> str:
    """A Read-Only user of the attacker's own, and their session token."""
    name = f"attacker-{random.randrange(1 << 30)}"
    with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {admin_token}"}) as http:
        roles = {role["name"]: role["id"] for role in http.get("/api/v2/roles").json()["data"]["roles"]}
        created = http.post("/api/v2/bloodhound-users", json={
            "principal": name, "email_address": f"{name}@bench.example", "first_name": "A", "last_name": "T",
            "roles": [roles["Read-Only"]], "secret": ATTACKER_PASSWORD, "needs_password_reset": False})
        created.raise_for_status()
        login = http.post("/api/v2/login", json={"login_method": "secret", "username": name,
                                                 "secret": ATTACKER_PASSWORD})
        login.raise_for_status()
        return str(login.json()["data"]["session_token"])


def _request(kind: str, plan: AttackPlan) -> tuple[str, str, dict[str, str], bytes]:
    if kind == "failed login":
        body = {"login_method": "secret", "username": f"nobody-{random.randrange(1 << 40)}", "secret": "wrong"}
        return "POST", "/api/v2/login", {"Content-Type": "application/json"}, json.dumps(body).encode()
    query = SLOW_QUERY if kind == "slow cypher" else HEAVY_QUERY
    return ("POST", "/api/v2/graphs/cypher", {"Content-Type": "application/json",
                                              "Authorization": f"Bearer {plan.reader_token}"},
            json.dumps({"query": query}).encode())


async def _attacker(kind: str, plan: AttackPlan, until: float, answered: Counter[str]) -> None:
    from load import Connection  # the benchmark's own lean HTTP client

    connection = await Connection.open(plan.url)
    try:
        while time.monotonic() < until:
            method, path, headers, body = _request(kind, plan)
            try:
                status = await connection.request(method, path, headers, body)
                answered[f"{kind} {status}"] += 1
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                answered[f"{kind} {type(error).__name__}"] += 1
                status = 0
                connection.close()
                connection = await Connection.open(plan.url)
            if kind == "failed login" and status == 429:
                await asyncio.sleep(0.05)  # a real flood does not wait; this keeps the generator's CPU for the rest
    finally:
        connection.close()


async def _attack(plan: AttackPlan) -> Counter[str]:
    answered: Counter[str] = Counter()
    until = time.monotonic() + plan.seconds
    await asyncio.gather(*(_attacker(kind, plan, until, answered)
                           for kind in KINDS for _ in range(plan.clients_per_kind)))
    return answered


def run_attack(plan: AttackPlan) -> Counter[str]:
    return asyncio.run(_attack(plan))


def report_attack(answered: Counter[str]) -> None:
    print("attackers were answered: " + ", ".join(f"{label} ×{count}" for label, count in sorted(answered.items())))
