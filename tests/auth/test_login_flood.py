"""Login floods (issue #11, defects 4 and 5): an attacker is slowed per address and per account while the
account's owner still logs in from elsewhere; password checks run off the event loop, a few at a time;
every failure is audited."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psycopg
import pytest

from houndgraph.auth import passwords
from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.auth.test_login_throttle import attempt
from tests.conftest import TLS, LiveServer, another_server
from tests.factories import PASSWORD, create_user, unique
from tests.user.helpers import assert_error

WRONG = "Wrong-Password-123"


def from_address(server: LiveServer, address: str) -> httpx.Client:
    """A client whose connections come from `address` (any 127.x.y.z reaches the loopback server). Each test has
    addresses of its own: the failures one test leaves stay counted against its addresses for the whole window."""
    return httpx.Client(base_url=server.base_url, timeout=60,
                        transport=httpx.HTTPTransport(local_address=address, verify=TLS))


@pytest.fixture
def strict_server(server_settings: Settings, database: Database) -> Iterator[LiveServer]:
    with another_server(server_settings, database, login_max_failures_per_address=8,
                        login_max_failures_per_account=6, login_paced_attempt_seconds=3) as server:
        yield server


def test_a_flooding_client_waits_while_the_owner_logs_in_from_elsewhere(admin: httpx.Client,
                                                                        strict_server: LiveServer) -> None:
    username = create_user(admin)["principal_name"]
    with from_address(strict_server, "127.0.11.1") as attacker, from_address(strict_server, "127.0.11.2") as owner:
        for _ in range(strict_server.settings.login_max_failures):
            assert_error(attempt(attacker, username, WRONG), 401)
        refused = attempt(attacker, username, PASSWORD)
        assert_error(refused, 429)
        assert int(refused.headers["Retry-After"]) == strict_server.settings.login_failure_window_seconds
        assert attempt(owner, username, PASSWORD).status_code == 200


def test_random_usernames_are_paced_without_locking_out_others_at_that_address(admin: httpx.Client,
                                                                               strict_server: LiveServer) -> None:
    # An office behind one NAT: an attacker among them fails with made-up names; they must still get in.
    username = create_user(admin)["principal_name"]
    with from_address(strict_server, "127.0.12.1") as office, from_address(strict_server, "127.0.12.2") as owner:
        for _ in range(strict_server.settings.login_max_failures_per_address):
            assert_error(attempt(office, unique("random"), WRONG), 401)
        # Past the limit the address gets one attempt per interval: the guesser's rate is bounded ...
        assert_error(attempt(office, unique("random"), WRONG), 401)
        paced = attempt(office, username, PASSWORD)
        assert_error(paced, 429)
        assert 1 <= int(paced.headers["Retry-After"]) <= strict_server.settings.login_paced_attempt_seconds
        # ... and a colleague whose account never failed gets in once the interval has passed.
        time.sleep(int(paced.headers["Retry-After"]))
        assert attempt(office, username, PASSWORD).status_code == 200
        assert attempt(owner, username, PASSWORD).status_code == 200


def test_the_pace_of_an_address_holds_across_the_service_processes(admin: httpx.Client, strict_server: LiveServer,
                                                                   server_settings: Settings,
                                                                   database: Database) -> None:
    # Kept in each process's memory, a paced address got one attempt per interval from every worker process.
    settings = strict_server.settings
    limits = {"login_max_failures_per_address": settings.login_max_failures_per_address,
              "login_paced_attempt_seconds": settings.login_paced_attempt_seconds}
    with another_server(server_settings, database, **limits) as second, \
            from_address(strict_server, "127.0.15.1") as first_process, \
            from_address(second, "127.0.15.1") as second_process:
        for _ in range(settings.login_max_failures_per_address):
            assert_error(attempt(first_process, unique("random"), WRONG), 401)
        assert_error(attempt(first_process, unique("random"), WRONG), 401)  # its paced attempt
        paced = attempt(second_process, unique("random"), WRONG)
        assert_error(paced, 429)
        assert 1 <= int(paced.headers["Retry-After"]) <= settings.login_paced_attempt_seconds
        time.sleep(int(paced.headers["Retry-After"]))
        assert_error(attempt(second_process, unique("random"), WRONG), 401)
        assert_error(attempt(first_process, unique("random"), WRONG), 429)


def test_a_paced_address_is_refused_again_without_a_record_for_each_attempt(
        server_settings: Settings, database: Database, raw_conn: psycopg.Connection) -> None:
    # Each refused attempt of a flood cost a transaction, three statements and an audit row: a flood of refusals
    # took the service's CPU from everyone else (the bench's normal clients fell to a fifth beside one).
    with another_server(server_settings, database, login_max_failures_per_address=3,
                        login_paced_attempt_seconds=60) as server, from_address(server, "127.0.14.1") as flood:
        names = [unique("paced") for _ in range(8)]
        for name in names[:4]:  # three failures, then the address's paced attempt
            assert_error(attempt(flood, name, WRONG), 401)
        refusals = [attempt(flood, name, WRONG) for name in names[4:]]
    assert [refused.status_code for refused in refusals] == [429] * 4
    assert all(1 <= int(refused.headers["Retry-After"]) <= 60 for refused in refusals)
    reasons = raw_conn.execute(
        "SELECT fields->>'reason' FROM audit_logs WHERE action = 'LoginAttempt' AND fields->>'username' = ANY(%s) "
        "ORDER BY id", (names,)).fetchall()
    # The first refusal of the interval is recorded; the repeats inside it are refused from the process's memory.
    assert [reason for (reason,) in reasons] == ["invalid credentials"] * 4 + ["paced"]


def test_many_addresses_against_one_account_do_not_lock_its_owner_out(admin: httpx.Client,
                                                                      strict_server: LiveServer) -> None:
    username = create_user(admin)["principal_name"]
    attackers = [from_address(strict_server, f"127.0.13.{index}") for index in range(1, 7)]
    for client in attackers:
        assert_error(attempt(client, username, WRONG), 401)
    # The account is now under attack: each address that failed on it waits, even with the right password ...
    assert_error(attempt(attackers[0], username, PASSWORD), 429)
    # ... while an address that never failed on it gets in.
    with from_address(strict_server, "127.0.13.100") as owner:
        assert attempt(owner, username, PASSWORD).status_code == 200
    for client in attackers:
        client.close()


def test_every_failed_login_leaves_an_audit_row(client: httpx.Client, raw_conn: psycopg.Connection,
                                                live_server: LiveServer) -> None:
    username = unique("audited")
    limit = live_server.settings.login_max_failures
    for _ in range(limit):
        assert_error(attempt(client, username, WRONG), 401)
    assert_error(attempt(client, username, WRONG), 429)
    rows = raw_conn.execute(
        "SELECT actor_id, status, fields->>'client_address', fields->>'reason' FROM audit_logs"
        " WHERE action = 'LoginAttempt' AND fields->>'username' = %s ORDER BY id", (username,)).fetchall()
    assert rows == [(None, "failure", "127.0.0.1", "invalid credentials")] * limit + \
        [(None, "failure", "127.0.0.1", "throttled")]


class WatchedHasher:
    """Records where and how many at once the server verifies passwords."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.lock = threading.Lock()
        self.running = 0
        self.most_at_once = 0
        self.threads: set[str] = set()

    def verify(self, digest: str, password: str) -> bool:
        with self.lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.threads.add(threading.current_thread().name)
        try:
            return self.inner.verify(digest, password)
        finally:
            with self.lock:
                self.running -= 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_password_checks_run_off_the_event_loop_a_few_at_a_time(live_server: LiveServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    watched = WatchedHasher(passwords._hasher)
    monkeypatch.setattr(passwords, "_hasher", watched)
    workers = live_server.settings.password_hash_workers

    def one_login(index: int) -> int:
        # Each from an address of its own: one address may queue only a few checks (the next test).
        with from_address(live_server, f"127.0.16.{index + 1}") as http:
            return attempt(http, unique(f"flood{index}"), WRONG).status_code

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(one_login, range(16)))
    assert set(statuses) == {401}
    assert all(name.startswith("password-hash") for name in watched.threads), watched.threads
    assert 1 <= watched.most_at_once <= workers


class HeldHasher(WatchedHasher):
    """A password check that waits until the test lets it go, noting what the server held meanwhile."""

    def __init__(self, inner: Any, database: Database) -> None:
        super().__init__(inner)
        self.database = database
        self.started = threading.Event()
        self.release = threading.Event()
        self.connections_held: list[int] = []
        self.thread_niceness: list[int] = []

    def verify(self, digest: str, password: str) -> bool:
        self.connections_held.append(self.database.async_engine.pool.checkedout())  # type: ignore[attr-defined]
        self.thread_niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        self.started.set()
        self.release.wait(30)
        return super().verify(digest, password)


def test_a_password_check_holds_no_connection_and_yields_the_cpu_to_requests(
        live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # A login held its request's connection while argon2 ran: a flood of them waiting for the hashing threads
    # held most of the pool; and the checks competed for the CPU with every other request at equal priority.
    held = HeldHasher(passwords._hasher, live_server.app.state.database)
    monkeypatch.setattr(passwords, "_hasher", held)
    with ThreadPoolExecutor(1) as pool, from_address(live_server, "127.0.17.1") as http:
        login = pool.submit(attempt, http, unique("held"), WRONG)
        assert held.started.wait(30)
        held.release.set()
        assert login.result().status_code == 401
    assert held.connections_held == [0]
    assert held.thread_niceness[0] > os.getpriority(os.PRIO_PROCESS, 0)


def test_one_address_cannot_take_the_password_checks_from_everyone_else(
        live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # Sixteen logins from one address filled the queue of checks: everyone else's logins waited behind them (and
    # the flood's argon2 work took the CPU from other requests). Past a few at once, that address is told 429.
    held = HeldHasher(passwords._hasher, live_server.app.state.database)
    monkeypatch.setattr(passwords, "_hasher", held)
    per_address = live_server.settings.password_hash_workers  # an address may queue as many checks as run at once

    def one_login(index: int) -> httpx.Response:
        with from_address(live_server, "127.0.18.1") as http:
            return attempt(http, unique(f"crowd{index}"), WRONG)

    with ThreadPoolExecutor(per_address + 3) as pool:
        crowd = [pool.submit(one_login, index) for index in range(per_address + 3)]
        deadline = time.monotonic() + 30
        while sum(answer.done() for answer in crowd) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        refused = [answer.result() for answer in crowd if answer.done()]
        assert len(refused) == 3 and {answer.status_code for answer in refused} == {429}
        assert_error(refused[0], 429, "too many logins at once from this address; try again shortly")
        assert refused[0].headers["Retry-After"] == "1"
        # Someone at another address is checked meanwhile, not refused.
        with from_address(live_server, "127.0.18.2") as http:
            elsewhere = pool.submit(attempt, http, unique("elsewhere"), WRONG)
            time.sleep(0.5)
            held.release.set()
            assert elsewhere.result().status_code == 401
        assert [answer.result().status_code for answer in crowd].count(401) == per_address


class SlowHasher(WatchedHasher):
    """A password check at the production cost on a busy machine: logins overlap as in a real flood."""

    def verify(self, digest: str, password: str) -> bool:
        time.sleep(0.5)
        return super().verify(digest, password)


def test_a_login_flood_neither_exhausts_the_pool_nor_stalls_others(admin: httpx.Client, live_server: LiveServer,
                                                                   raw_conn: psycopg.Connection,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Each refusal writes its failure and audit records; written on connections the requests took from the pool
    # as they held their own, 30 refusals at once deadlocked it (500s, everyone else waiting 30 s).
    monkeypatch.setattr(passwords, "_hasher", SlowHasher(passwords._hasher))
    flood, prefix = 64, unique("flood")
    barrier = threading.Barrier(flood + 1)

    def one_login(index: int) -> int:
        with from_address(live_server, "127.0.14.1") as http:
            barrier.wait()
            return attempt(http, f"{prefix}-{index}", WRONG).status_code

    with ThreadPoolExecutor(flood) as pool:
        answers = [pool.submit(one_login, index) for index in range(flood)]
        barrier.wait()
        started = time.monotonic()
        assert admin.get("/api/v2/self").status_code == 200
        # Deadlocked, the pool answered after its 30 s timeout; here only the machine's load delays it.
        assert time.monotonic() - started < 15
        statuses = [answer.result() for answer in answers]
    assert set(statuses) <= {401, 429} and 401 in statuses, statuses
    audited = raw_conn.execute("SELECT count(*) FROM audit_logs WHERE action = 'LoginAttempt' AND status = 'failure'"
                               " AND fields->>'username' LIKE %s", (f"{prefix}-%",)).fetchone()
    assert audited == (flood,)
