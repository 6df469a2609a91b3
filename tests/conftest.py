"""Test fixtures: one embedded PostgreSQL per test session, migrated once; graph data truncated per test.

Under pytest-xdist every worker is a session of its own: its own data directory, PostgreSQL, ports and
live server, so workers share nothing."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from houndgraph.auth import passwords
from houndgraph.db import Database, libpq_url
from houndgraph.settings import Settings
from tests import database_template

if TYPE_CHECKING:
    from houndgraph.routing import Route
    from tests.service import ServiceDirectory

# How the suite is spread over the test workers.
pytest_plugins = ("tests.work_order",)

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DATA = SHARED / "data"


# argon2 at its cheapest for the users tests make (a login per test at the production cost would take about a
# fifth of the suite's time); tests/auth/test_passwords.py checks that the service's default is the real cost.
CHEAP_PASSWORD_HASHING = {"password_hash_time_cost": 1, "password_hash_memory_kib": 8, "password_hash_parallelism": 1}


def pytest_configure(config: pytest.Config) -> None:
    database_template.configure(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    database_template.configure_node(node)


def pytest_unconfigure(config: pytest.Config) -> None:
    database_template.unconfigure(config)


@pytest.fixture(scope="session")
def data_dir(worker_id: str) -> Iterator[Path]:
    # Short path: the PostgreSQL socket lives inside it and unix socket paths are limited to ~100 bytes.
    with tempfile.TemporaryDirectory(prefix=f"hg-{worker_id}-", dir="/tmp") as path:
        yield Path(path)


def _worker_database_url(url: str, worker_id: str) -> str:
    """With an external server, each xdist worker gets a database of its own (created when missing)."""
    if worker_id == "master":
        return url
    parsed = make_url(url)
    name = f"{parsed.database}_{worker_id}"
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    return parsed.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def database(data_dir: Path, worker_id: str, pytestconfig: pytest.Config) -> Iterator[Database]:
    url = os.environ.get("HOUNDGRAPH_TEST_DATABASE_URL")
    if not url:
        database_template.seed(pytestconfig, data_dir)
    settings = Settings(data_dir=data_dir, database_url=url and _worker_database_url(url, worker_id),
                        **CHEAP_PASSWORD_HASHING)
    passwords.configure(settings)
    db = Database.open(settings)
    db.migrate()
    yield db
    db.close()


@contextmanager
def scratch_database(database: Database, prefix: str) -> Iterator[Database]:
    """A migrated database of its own on the test server, dropped afterwards: for tests that restore,
    fuzz or otherwise change what every other test relies on."""
    import uuid

    from sqlalchemy.engine import make_url

    from houndgraph.db import libpq_url

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin_url = libpq_url(str(make_url(database.url).set(database="postgres")))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        # On a server copied from the run's template, a copy of its migrated database (`migrate` below then finds
        # nothing to do); on an external server, an empty one.
        migrated = database_template.MIGRATED_DATABASE
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (migrated,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{migrated}"')
        else:
            conn.execute(f'CREATE DATABASE "{name}"')
    scratch = Database(url=str(make_url(database.url).set(database=name)))
    try:
        scratch.migrate()
        yield scratch
    finally:
        scratch.close()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture
def raw_conn(database: Database) -> Iterator[psycopg.Connection]:
    with database.connect_raw() as conn:
        yield conn


def empty_graph_tables(conn: psycopg.Connection, attempts: int = 5) -> None:
    """Empty the graph tables under the graph's write lock, as every writer of the service takes it: a
    TRUNCATE racing the worker's datapipe (an analysis a previous test asked for) would deadlock. Readers do
    not take that lock: one that holds `node` and then asks for `edge` (a service's warm-up query as it starts)
    deadlocks with the TRUNCATE, which holds `edge` and waits for `node`; PostgreSQL cancels the TRUNCATE, which
    is tried again once the reader is through."""
    from houndgraph.graph.store.sql import WRITE_LOCK_ID

    for attempt in range(attempts):
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_ID,))
                conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
            return
        except psycopg.errors.DeadlockDetected:
            if attempt == attempts - 1:
                raise


def move_node_ids_past_given_ones(conn: psycopg.Connection) -> None:
    """After nodes were inserted with ids given by hand: the next node the service writes gets a new id,
    not one of theirs (a test that leaves its graph behind must not break the next ingest)."""
    conn.execute("SELECT setval(pg_get_serial_sequence('node', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM node), "
                 "false)")


@pytest.fixture
def empty_graph(database: Database) -> Database:
    """The graph tables emptied (the kind catalogue is kept: ids stay stable across tests)."""
    with database.connect_raw(autocommit=True) as conn:
        empty_graph_tables(conn)
    return database


# --- the real app over HTTP -------------------------------------------------------------------

import socket  # noqa: E402
import ssl  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import httpx  # noqa: E402
import httpx._transports.default as httpx_transports  # noqa: E402
import uvicorn  # noqa: E402

ADMIN_PASSWORD = "Test-Admin-Password-1!"
# httpx reads the CA bundle for every client it makes (about 40 ms of CPU, two minutes of the suite): the test
# clients share one context (they speak plain HTTP to the test servers anyway).
TLS = httpx.create_ssl_context()


def _shared_default_tls(cert: Any = None, verify: Any = True, trust_env: bool = True, http2: bool = False
                        ) -> ssl.SSLContext:
    """httpx's context for a client made with the default verification: TLS, where the suite's many clients made
    without it (the official SDK's, httpx.get and post, test helpers: about half a minute of the suite's CPU) each
    read the CA bundle again."""
    if cert is None and verify is True and trust_env and not http2:
        return TLS
    return httpx.create_ssl_context(cert=cert, verify=verify, trust_env=trust_env, http2=http2)


assert hasattr(httpx_transports, "create_ssl_context"), "httpx makes its transports' contexts elsewhere now"
httpx_transports.create_ssl_context = _shared_default_tls


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """The real ASGI app under a real uvicorn, on a loopback port, in a background thread."""

    def __init__(self, settings: Settings, database: Database) -> None:
        from houndgraph.app import create_app

        self.settings = settings
        self.app = create_app(settings, database)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=settings.port, log_level="warning",
                                lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.base_url = f"http://127.0.0.1:{settings.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="session")
def server_settings(data_dir: Path) -> Settings:
    # Every test logs in from 127.0.0.1 (the fuzzer too): the per-address throttle is tested on addresses of its own.
    # The datapipe starts work as it is written (`worker/datapipe_wake.sql`); its tick, once a second, is only for
    # time passing (it was 0.2 s before the datapipe was woken, and idle ticks were a tenth of the suite's CPU).
    return Settings(data_dir=data_dir, port=_free_port(), admin_password=ADMIN_PASSWORD,
                    secret_key="x" * 48, datapipe_interval=1.0, login_max_failures_per_address=1_000_000,
                    **CHEAP_PASSWORD_HASHING)


@pytest.fixture(scope="session")
def live_server(server_settings: Settings, database: Database) -> Iterator[LiveServer]:
    server = LiveServer(server_settings, database)
    server.start()
    yield server
    server.stop()


@contextmanager
def another_server(settings: Settings, database: Database, *, routes: Sequence[Route] = (),
                   **overrides: Any) -> Iterator[LiveServer]:
    """The app once more, on a port of its own, with `overrides` to `settings` and extra `routes`.

    It gets its own engines: pooled async connections belong to the event loop of the server that made them."""
    from houndgraph.routing import register_routes

    own_database = Database(url=database.url)
    server = LiveServer(settings.model_copy(update={"port": _free_port(), **overrides}), own_database)
    register_routes(server.app.router, routes)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        own_database.close()


@pytest.fixture
def migrated_data_dir(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    """A data directory of its own whose embedded database is a copy of the run's migrated template: a service
    starts on it as on the directory a stopped service left (tests/database_template.py)."""
    return database_template.seed(pytestconfig, tmp_path_factory.mktemp("svc", numbered=True))


@pytest.fixture
def service(migrated_data_dir: Path) -> Iterator[ServiceDirectory]:
    """`houndgraph serve` as a subprocess on a data directory of its own (see tests/service.py for why not shared)."""
    from tests.service import ServiceDirectory

    directory = ServiceDirectory(migrated_data_dir)
    yield directory
    directory.close()


@pytest.fixture
def new_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceDirectory]:
    """`houndgraph serve` on an empty data directory: its first start makes and migrates the database."""
    from tests.service import ServiceDirectory

    directory = ServiceDirectory(tmp_path_factory.mktemp("new", numbered=True))
    yield directory
    directory.close()


# uvicorn closes a connection idle for 5 s, httpx keeps one for 5 s: a request sent on it as the server closes it
# is reset (a browser test leaves its API client idle that long). Dropping idle connections sooner avoids the race.
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=2.0)


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.base_url, timeout=60, limits=CLIENT_LIMITS, verify=TLS) as http:
        yield http


def login(http: httpx.Client, username: str, password: str) -> str:
    response = http.post("/api/v2/login", json={"login_method": "secret", "username": username,
                                                "secret": password})
    assert response.status_code == 200, response.text
    return response.json()["data"]["session_token"]


@pytest.fixture
def admin_token(client: httpx.Client) -> str:
    return login(client, "admin", ADMIN_PASSWORD)


@pytest.fixture
def admin(client: httpx.Client, admin_token: str) -> httpx.Client:
    """A client logged in as the administrator."""
    client.headers["Authorization"] = f"Bearer {admin_token}"
    return client


# --- the openCypher TCK's pass counts (tests/tck), gathered from every worker's reports ------------------

_tck_results: dict[str, dict[str, Any]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for name, value in report.user_properties:
        if name == "tck" and report.when == "call":
            into = _tck_results.setdefault(value["folder"], {"passed": 0, "failed": {}})
            into["passed"] += value["passed"]
            into["failed"].update(value["failed"])


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Pass counts per TCK folder; with HOUNDGRAPH_TCK_LIST set, the scenarios that failed are written there
    in the format of tests/tck/not_passing.txt."""
    if not _tck_results:
        return
    terminalreporter.section("openCypher TCK")
    total_passed = total = 0
    for folder, result in sorted(_tck_results.items()):
        count = result["passed"] + len(result["failed"])
        total_passed, total = total_passed + result["passed"], total + count
        share = 100 * result["passed"] / count
        terminalreporter.write_line(f"{folder:42} {result['passed']:5} / {count:5}  {share:5.1f} %")
    terminalreporter.write_line(f"{'all':42} {total_passed:5} / {total:5}  {100 * total_passed / total:5.1f} %")
    if out := os.environ.get("HOUNDGRAPH_TCK_LIST"):
        failed = {sid: reason for result in _tck_results.values() for sid, reason in result["failed"].items()}
        lines = [f"{sid} {' '.join(reason.split())[:160]}\n" for sid, reason in sorted(failed.items())]
        Path(out).write_text("".join(lines))
