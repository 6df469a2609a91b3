"""The kind catalogue: kind names and the small integer ids stored in `node.kind_ids` and `edge.kind_id`.

The one module that reads or creates rows of the `kind` table. Ids of committed kinds are cached for
the whole process: the table only grows (purges delete nodes and edges, never kinds) and a name never
changes its id, so a cached id stays right in every process; a name the cache lacks is looked up again
(another process may have created it since). A kind this transaction created, or read after writing
anything, is kept only by the transaction's `KindCatalogue`: if the transaction rolls back, its id is
gone, and the process cache must never hold it.

Concurrent creators are safe: `ON CONFLICT DO NOTHING` on the unique name, and a second process
inserting the same new name waits for the first to commit, then reads its id.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NamedTuple

import psycopg

from houndgraph.graph.connection import GraphConnection, int_array

# `clean`: this transaction has written nothing yet, so every row it sees is committed.
_CLEAN = "pg_current_xact_id_if_assigned() IS NULL"
SELECT_NAMED = f"SELECT name, id, {_CLEAN} FROM kind WHERE name = ANY(%s::text[])"
SELECT_ALL = f"SELECT name, id, {_CLEAN} FROM kind"
# With the graph generation (migration 0019), which tells caches of what the graph holds (kind statistics)
# when to look again, at no round trip of their own.
COUNT = f"SELECT count(*), {_CLEAN}, (SELECT last_value FROM graph_generation) FROM kind"
# Sorted, so two processes creating the same new kinds lock the names in the same order.
CREATE = "INSERT INTO kind (name) SELECT unnest(%s::text[]) ORDER BY 1 ON CONFLICT (name) DO NOTHING"


class _Committed:
    """The process-wide cache of one database's committed kinds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ids: dict[str, int] = {}
        # How many kinds the last full read of a clean transaction saw; all of them are in `ids`.
        self.full_read_count = -1

    def absorb(self, rows: Iterable[Sequence[Any]], local: dict[str, int]) -> None:
        """Rows `(name, id, clean)`: clean ones are committed and cached here, the others in `local`."""
        committed: dict[str, int] = {}
        for name, kind_id, clean in rows:
            (committed if clean else local)[name] = kind_id
        if committed:
            with self._lock:
                self.ids = {**self.ids, **committed}

    def missing(self, names: Iterable[str], local: Mapping[str, int]) -> list[str]:
        known = self.ids
        return sorted({name for name in names if name not in local and name not in known})

    def lookup(self, name: str, local: Mapping[str, int]) -> int | None:
        found = local.get(name)
        return self.ids.get(name) if found is None else found


# By database (server and name): a process may reach more than one (a test's scratch database beside the
# suite's, a restore into a new database), and the same name has another id in each.
_CACHES: dict[tuple[str, int, str], _Committed] = {}
_CACHES_LOCK = threading.Lock()


def _committed(conn: psycopg.Connection[Any] | GraphConnection) -> _Committed:
    info = conn.info
    key = (info.host, info.port, info.dbname)
    found = _CACHES.get(key)
    if found is None:
        with _CACHES_LOCK:
            found = _CACHES.setdefault(key, _Committed())
    return found


class KindList(NamedTuple):
    ids: frozenset[int]
    literal: str


class KindCatalogue:
    """Kind ids for one transaction of a synchronous writer (ingest, analysis); `reset` when a new
    transaction starts. `ids` and `id` create missing kinds, `existing_ids` and `existing_id` do not."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn
        self._committed = _committed(conn)
        self._local: dict[str, int] = {}
        self._lists: dict[tuple[str, ...], KindList] = {}
        self._parsed: dict[str, frozenset[int]] = {}

    def reset(self) -> None:
        self._local.clear()
        self._lists.clear()

    def kind_list(self, kinds: Iterable[str]) -> KindList:
        """The ids of a list of kinds, as a set and as the array literal staged by COPY."""
        key = tuple(kinds)
        found = self._lists.get(key)
        if found is None:
            ids = self.ids(key)
            found = self._lists[key] = KindList(frozenset(ids), int_array(ids))
        return found

    def parse(self, literal: str) -> frozenset[int]:
        """Kind ids from a `kind_ids::text` array literal. Read through a cache: there are only a few
        distinct lists, and psycopg would parse a smallint[] column in Python, row by row."""
        found = self._parsed.get(literal)
        if found is None:
            found = self._parsed[literal] = frozenset(int(kind) for kind in literal.strip("{}").split(",") if kind)
        return found

    def id(self, name: str) -> int:
        return self.ids((name,))[0]

    def ids(self, names: Iterable[str]) -> list[int]:
        names = list(names)
        missing = self._committed.missing(names, self._local)
        if missing:
            self._conn.execute(CREATE, (missing,))
            self._read(missing)
        return [self._known(name) for name in names]

    def existing_id(self, name: str) -> int | None:
        """The id of a kind that exists; None when no node or edge has ever used it (nothing to find)."""
        found = self.existing_ids((name,))
        return found[0] if found else None

    def existing_ids(self, names: Iterable[str]) -> list[int]:
        """The ids of those of `names` that exist, in their order."""
        names = list(names)
        missing = self._committed.missing(names, self._local)
        if missing:
            self._read(missing)
        found = (self._committed.lookup(name, self._local) for name in names)
        return [kind_id for kind_id in found if kind_id is not None]

    def all(self) -> dict[str, int]:
        """Every kind name and its id, as this transaction sees them (Cypher translation needs them all)."""
        rows = self._conn.execute(SELECT_ALL).fetchall()
        self._committed.absorb(rows, self._local)
        return {name: kind_id for name, kind_id, _ in rows}

    def _read(self, names: list[str]) -> None:
        self._committed.absorb(self._conn.execute(SELECT_NAMED, (names,)).fetchall(), self._local)

    def _known(self, name: str) -> int:
        found = self._committed.lookup(name, self._local)
        assert found is not None, name
        return found


# The graph generation the newest `kind_map` of this process read.
_graph_generation: int | None = None


@dataclass(slots=True)
class _StartReading:
    """What a request's first statement read (`db.RequestStart`), on its connection."""

    conn: GraphConnection
    kind_count: int
    graph_generation: int
    created: bool = False  # the transaction has created kinds since (`ensure_kinds`)


_start_reading: ContextVar[_StartReading | None] = ContextVar("kind_catalogue_start_reading", default=None)


def read_at_start(conn: GraphConnection, kind_count: int | None, graph_generation: int | None) -> None:
    """The kind table's row count and the graph generation as the first statement of the transaction on
    `conn` read them (the request's, `db.Database.session`), for `kind_map` on that connection in this
    context: no statement of its own while the transaction has created no kind. None: forget it."""
    reading = None
    if kind_count is not None and graph_generation is not None:
        reading = _StartReading(conn, kind_count, graph_generation)
    _start_reading.set(reading)


def graph_generation_seen() -> int | None:
    """The graph generation (migration 0019) as this process last read it, with the kind count; None before
    the first read. It moves with every write of nodes or edges, before their commit: a hint that what a
    cache derived from the graph may be old, never a guarantee that it is current."""
    return _graph_generation


async def kind_map(conn: GraphConnection) -> dict[str, int]:
    """Every kind name and its id, as this transaction sees them. Answered from the process cache while
    the table has not grown since the last full read (it only grows, so an equal count means the same
    rows); otherwise, or when this transaction has written, read again. In a request, the count is the one
    its first statement read (`read_at_start`), so usually no statement at all."""
    global _graph_generation
    committed = _committed(conn)
    reading = _start_reading.get()
    if (reading is not None and reading.conn is conn and not reading.created
            and reading.kind_count == committed.full_read_count):
        # Committed kinds only, none since the last full read: this transaction has created none.
        _graph_generation = reading.graph_generation
        return dict(committed.ids)
    cursor = await conn.execute(COUNT)
    row = await cursor.fetchone()
    assert row is not None
    count, clean, _graph_generation = int(row[0]), bool(row[1]), int(row[2])
    if clean and count == committed.full_read_count:
        return dict(committed.ids)
    local: dict[str, int] = {}
    cursor = await conn.execute(SELECT_ALL)
    committed.absorb(await cursor.fetchall(), local)
    if clean:
        committed.full_read_count = count
    return {**committed.ids, **local}


async def ensure_kinds(conn: GraphConnection, kinds: dict[str, int], names: Iterable[str]) -> None:
    """Adds the missing kind names to the table and to `kinds` (this transaction's map)."""
    missing = sorted({name for name in names if name not in kinds})
    if not missing:
        return
    reading = _start_reading.get()
    if reading is not None and reading.conn is conn:
        reading.created = True
    await conn.execute(CREATE, (missing,))
    # Read after a write: never committed-clean, so nothing here reaches the process cache.
    cursor = await conn.execute(SELECT_NAMED, (missing,))
    kinds.update({name: kind_id for name, kind_id, _ in await cursor.fetchall()})
