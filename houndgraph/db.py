"""The one PostgreSQL: the embedded server (`embedded_server`), or HOUNDGRAPH_DATABASE_URL.

Also the engines (async for requests, sync for the datapipe, the CLI and migrations), the
request-scoped session bound by the request's deadline (statement timeout, backend cancelled when the
deadline passes or the client leaves), the one way graph code reaches that session's connection
(`graph_connection`) and the work budget of its searches (`work_budget`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import quote

import psycopg
import psycopg.generators
import psycopg.types.json
from psycopg import pq
from psycopg.rows import tuple_row
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from houndgraph import database_code
from houndgraph.database_errors import connection_lost
from houndgraph.deadline import RequestDeadline
from houndgraph.embedded_server import start_embedded
from houndgraph.errors import ServiceUnavailable
from houndgraph.graph import kind_catalogue
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.json_values import read_json
from houndgraph.graph.projection import store as projection_store
from houndgraph.graph.projection.reading import VERSION as EDGE_VERSION
from houndgraph.graph.projection.search import PairSearch
from houndgraph.graph.projection.store import ProjectionStore
from houndgraph.pool_checkout import refuse_dropped
from houndgraph.read_replica import ReadReplica, ReplicaUnavailable, wait_for_replay
from houndgraph.settings import Settings

log = logging.getLogger(__name__)

# The synchronous pool (migrations, the CLI, synchronous library code run for a request): connections kept, and
# how many more it may open at once.
SYNC_POOL_SIZE = 5
SYNC_POOL_OVERFLOW = 5

MIGRATION_LOCK_ID = 0x686F756E64  # "hound": one process migrates at a time


def _sqlalchemy_url(url: str) -> str:
    parsed = make_url(url)
    return str(parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False))


def libpq_url(url: str) -> str:
    """A URL psycopg understands directly (no SQLAlchemy driver suffix). Its parameters are written with `%20` for a
    space: SQLAlchemy writes `+`, which libpq keeps as a plus sign (`options=-c x=1` reached the server as
    `-c+x=1`, and every connection the datapipe opened was refused)."""
    parsed = make_url(url).set(drivername="postgresql")
    base = parsed.set(query={}).render_as_string(hide_password=False)
    pairs = [(key, value) for key, values in parsed.query.items()
             for value in (values if isinstance(values, tuple) else (values,))]
    if not pairs:
        return base
    return base + "?" + "&".join(f"{quote(key, safe='')}={quote(value, safe='')}" for key, value in pairs)


@dataclass
class Database:
    """Connections to the service's PostgreSQL; created once in the composition root."""

    url: str
    embedded: Any = None
    async_engine: AsyncEngine = field(init=False)
    sync_engine: Engine = field(init=False)
    sessionmaker: async_sessionmaker[AsyncSession] = field(init=False)
    # The host's copies of the edge table for path searches (set by the composition root; None: searches run in
    # PostgreSQL).
    edge_projections: ProjectionStore | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        psycopg.types.json.set_json_loads(read_json)
        sa_url = _sqlalchemy_url(self.url)
        # Requests' connections are not pinged at checkout (one more round trip per request): a look at the
        # socket tells a connection the server dropped (restart, terminated backend), and the pool replaces it.
        # Last in, first out: a quiet service keeps reusing the few connections whose backends have warmed up
        # (catalogue caches, prepared statements); a backend's first graph query costs a few hundred ms.
        self.async_engine = create_async_engine(sa_url, pool_size=10, max_overflow=20, pool_use_lifo=True)
        event.listen(self.async_engine.sync_engine, "checkout", refuse_dropped)
        self.sync_engine = create_engine(sa_url, pool_size=SYNC_POOL_SIZE, max_overflow=SYNC_POOL_OVERFLOW,
                                         pool_pre_ping=True)
        self._sync_slots = threading.BoundedSemaphore(SYNC_POOL_SIZE + SYNC_POOL_OVERFLOW)
        self.sessionmaker = async_sessionmaker(self.async_engine, expire_on_commit=False)

    # Graph reads go to this streaming replica when it can serve them (`read_replica`); None: the primary serves all.
    read_replica: ReadReplica | None = field(default=None, init=False)

    @classmethod
    def open(cls, settings: Settings) -> Database:
        if settings.database_url:
            database = cls(url=settings.database_url)
        else:
            server, url = start_embedded(settings.pgdata_dir.resolve())
            database = cls(url=url, embedded=server)
        if settings.read_database_url:
            database.add_read_replica(settings.read_database_url, settings.read_replica_max_wait_seconds)
        return database

    def add_read_replica(self, url: str, max_wait_seconds: float) -> None:
        engine = create_async_engine(_sqlalchemy_url(url), pool_size=10, max_overflow=20, pool_use_lifo=True)
        event.listen(engine.sync_engine, "checkout", refuse_dropped)
        self.read_replica = ReadReplica(engine, self.conninfo, max_wait_seconds)

    @property
    def conninfo(self) -> str:
        return libpq_url(self.url)

    def connect_raw(self, **kwargs: Any) -> psycopg.Connection:
        """A plain psycopg connection (COPY, long datapipe work)."""
        return psycopg.connect(self.conninfo, **kwargs)

    @contextmanager
    def pooled_sync(self, wait_seconds: float) -> Iterator[psycopg.Connection]:
        """A connection of the synchronous pool, in a transaction rolled back at the end, for synchronous library
        code a request runs in a thread (a zone preview): bounded as the requests' pool is, so a crowd of such
        requests waits its turn instead of opening connections until PostgreSQL has none left. `ServiceUnavailable`
        when none is free within `wait_seconds`."""
        if not self._sync_slots.acquire(timeout=max(wait_seconds, 0.0)):
            raise ServiceUnavailable("the service is busy: try again shortly")
        try:
            with self.sync_engine.connect() as conn:
                driver = conn.connection.driver_connection
                assert isinstance(driver, psycopg.Connection)
                yield driver
        finally:
            self._sync_slots.release()

    def migrate(self) -> None:
        """Bring the schema to the newest revision and the database code to the package's `.sql` files; safe when
        several processes start at once."""
        from alembic import command

        from houndgraph.migrate import alembic_config

        with self.sync_engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": MIGRATION_LOCK_ID})
            try:
                config = alembic_config()
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
                revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
                driver = conn.connection.driver_connection
                assert isinstance(driver, psycopg.Connection)
                database_code.install(driver, revision)
                conn.commit()
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": MIGRATION_LOCK_ID})
                conn.commit()

    async def dispose(self) -> None:
        await self.async_engine.dispose()
        self.sync_engine.dispose()
        if self.read_replica is not None:
            await self.read_replica.dispose()

    def close(self) -> None:
        self.sync_engine.dispose()
        if self.embedded is not None:
            self.embedded.cleanup()

    @asynccontextmanager
    async def session(self, deadline: RequestDeadline | None = None, *,
                      graph_read: bool = False) -> AsyncIterator[AsyncSession]:
        """A session whose transaction commits on success. With a `deadline`, all its statements together
        end by it: each runs under a statement timeout of what remains, and the deadline cancels the
        backend when it passes (or when the request is cancelled). A `graph_read` (a request that writes nothing)
        is served by the read replica when there is one that has replayed every commit made before now
        (`read_replica`); otherwise, as every other session, by the primary."""
        replica = self.read_replica if graph_read and deadline is not None else None
        if replica is not None and replica.usable():
            try:
                position = await replica.position.since(time.monotonic())
            except psycopg.Error:
                position = None  # the primary is not answering either: it will say so below
            if position is not None:
                wait = (position, replica.wait_budget(deadline.remaining() if deadline else 0.0))
                handed_out = answered = False
                try:
                    async with self._session(replica.sessionmaker, deadline, replay=wait) as session:
                        session.info[REPLICA_KEY] = True
                        handed_out = True
                        yield session
                        answered = True
                    return
                except ReplicaUnavailable as unavailable:
                    if handed_out:
                        raise
                    replica.pass_over(str(unavailable))
                # SQLAlchemy's own errors too: a commit on a connection it invalidated (a statement whose error the
                # handler did not pass on had lost it) raises "invalid transaction", not a driver error.
                except (psycopg.Error, SQLAlchemyError) as error:
                    if not connection_lost(error) or (handed_out and not answered):
                        raise
                    if answered:
                        # The answer is complete and the transaction wrote nothing: that the replica went away
                        # before it ended changes nothing for the request.
                        replica.pass_over("it went away as a read ended")
                        return
                    # It went away before the read began (ending the lost transaction raised an error of its own in
                    # place of ReplicaUnavailable): the primary serves the read.
                    replica.pass_over("it went away as a read began")
        async with self._session(self.sessionmaker, deadline) as session:
            yield session

    @asynccontextmanager
    async def _session(self, sessionmaker: async_sessionmaker[AsyncSession], deadline: RequestDeadline | None,
                       replay: tuple[str, float] | None = None) -> AsyncIterator[AsyncSession]:
        """A session of `sessionmaker`; with `replay` (a WAL position and seconds), a replica's, which raises
        ReplicaUnavailable before it is handed out if it cannot be reached or has not replayed that far in time."""
        async with sessionmaker() as session:
            async with session.begin():
                if deadline is None:
                    yield session
                    return
                try:
                    connection = await graph_connection(session)
                    if replay is not None and not await wait_for_replay(connection, *replay):
                        raise ReplicaUnavailable(f"it had not replayed {replay[0]} after {replay[1]:.2f} s")
                    start = await start_request(connection, deadline.remaining())
                except (psycopg.OperationalError, DBAPIError) as error:
                    if replay is None or not connection_lost(error):
                        raise
                    raise ReplicaUnavailable(f"it cannot be reached ({type(error).__name__})") from error
                session.info[DEADLINE_KEY] = deadline
                session.info[PROJECTIONS_KEY] = self.edge_projections
                session.info[REQUEST_START_KEY] = start
                kind_catalogue.read_at_start(connection, start.kind_count, start.graph_generation)
                deadline.attach(connection)
                if self.edge_projections is not None:
                    projection_store.attach(connection, partial(self.edge_projections.search_for, start.edge_version))
                try:
                    yield session
                finally:
                    kind_catalogue.read_at_start(connection, None, None)
                    deadline.detach(connection)
                    projection_store.detach(connection)


def on_replica(session: AsyncSession) -> bool:
    """Whether the session reads from the read replica (where nothing can be written)."""
    return bool(session.info.get(REPLICA_KEY))


DEADLINE_KEY = "houndgraph.deadline"
REPLICA_KEY = "houndgraph.read_replica"
REQUEST_START_KEY = "houndgraph.request_start"
PROJECTIONS_KEY = "houndgraph.edge_projections"


@dataclass(frozen=True, slots=True)
class RequestStart:
    """What the first statement of a request's transaction read: the cache generation (migration 0017) the
    process's auth caches are valid for, and the kind table's row count with the graph generation (migration
    0019), which let the kind catalogue answer from its process cache with no statement of its own
    (`kind_catalogue.read_at_start`), and the version of the edges the request sees (migration 0032): the path
    projection of that version, if there is one, answers its path searches (`edge_projection`)."""

    generation: int
    kind_count: int
    graph_generation: int
    edge_version: str


# Read in one statement, which also sets the statement timeout of the transaction (`SET LOCAL`).
START_REQUEST = ("SELECT generation, set_config('statement_timeout', '{milliseconds}', true), "
                 "(SELECT count(*) FROM kind), (SELECT last_value FROM graph_generation), "
                 f"({EDGE_VERSION}) FROM cache_generation")


async def start_request(connection: GraphConnection, seconds: float) -> RequestStart:
    """The first statement of a request's transaction: its statement timeout (never 0, which is no limit)
    and what `RequestStart` holds. Sent on the driver's connection: SQLAlchemy's statement machinery costs
    more than the round trip.

    When the transaction has not begun yet (the usual case: the session's connection was just checked out),
    BEGIN and the statement go together in one simple-protocol message, one round trip where psycopg would
    make two (its own BEGIN first). psycopg and SQLAlchemy both read the transaction's state from the
    connection (libpq's status), so they carry on inside it as if they had begun it."""
    milliseconds = max(int(seconds * 1000), 1)
    query = START_REQUEST.format(milliseconds=milliseconds)
    if _plain_begin(connection):
        async with connection.lock:
            connection.pgconn.send_query(f"BEGIN; {query}".encode())
            results = await connection.wait(psycopg.generators.execute(connection.pgconn))
        for result in results:
            if result.status == pq.ExecStatus.FATAL_ERROR:
                raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)
        last = results[-1]
        if last.status != pq.ExecStatus.TUPLES_OK or last.ntuples != 1:
            raise psycopg.InternalError(f"unexpected answer to the request's first statement: {last.status}")
        values = [last.get_value(0, column) for column in (0, 2, 3, 4)]
        assert all(value is not None for value in values), "migrations 0017, 0019 and 0032 write the rows"
        generation, kind_count, graph_generation = (int(value or b"0") for value in values[:3])
        return RequestStart(generation, kind_count, graph_generation, (values[3] or b"").decode())
    async with connection.cursor(row_factory=tuple_row) as cursor:
        await cursor.execute(query)
        row = await cursor.fetchone()
    assert row is not None, "migration 0017 writes the one row"
    return RequestStart(int(row[0]), int(row[2]), int(row[3]), str(row[4]))


def _plain_begin(connection: GraphConnection) -> bool:
    """Whether psycopg would begin the next statement's transaction with a plain BEGIN: no transaction yet,
    not autocommit, no isolation level, read-only or deferrable option of its own, no pipeline."""
    return (connection.pgconn.transaction_status == pq.TransactionStatus.IDLE and not connection.autocommit
            and connection.isolation_level is None and connection.read_only is None
            and connection.deferrable is None and connection.pgconn.pipeline_status == pq.PipelineStatus.OFF)


def request_start(session: AsyncSession) -> RequestStart | None:
    """What the request's first statement read; None outside a request."""
    return session.info.get(REQUEST_START_KEY)


def cache_generation(session: AsyncSession) -> int | None:
    """The cache generation read when the request's transaction began; None outside a request."""
    start = request_start(session)
    return start.generation if start is not None else None


def edge_projection(session: AsyncSession) -> PairSearch | None:
    """The path search over the in-memory copy of the edges the request sees, when it is ready; None outside a
    request, when the service keeps no copies, or while the copy of a newer generation is being built."""
    start = request_start(session)
    store = session.info.get(PROJECTIONS_KEY)
    if start is None or not isinstance(store, ProjectionStore):
        return None
    return store.search_for(start.edge_version)


def work_budget(session: AsyncSession) -> WorkBudget:
    """The budget of the graph searches run in `session`: the library's limits, ending at its deadline."""
    deadline = session.info.get(DEADLINE_KEY)
    if isinstance(deadline, RequestDeadline):
        return WorkBudget(expired=deadline.expired)
    return WorkBudget()


def remaining_seconds(session: AsyncSession) -> float:
    """What is left of the request's deadline (unbounded outside a request)."""
    deadline = session.info.get(DEADLINE_KEY)
    return deadline.remaining() if isinstance(deadline, RequestDeadline) else float("inf")


async def graph_connection(session: AsyncSession) -> GraphConnection:
    """The psycopg connection under the request's session, for the graph library and graph repositories:
    same transaction, same statement timeout. The only place the SQLAlchemy session is unwrapped."""
    connection = await session.connection()
    raw = await connection.get_raw_connection()
    driver = raw.driver_connection
    assert isinstance(driver, psycopg.AsyncConnection)
    return driver
