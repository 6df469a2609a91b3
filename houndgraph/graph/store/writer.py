"""GraphStore: bulk writes of record batches into the node and edge tables."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

import orjson
import psycopg

from houndgraph.graph.kinds import ADNode
from houndgraph.graph.records import Batch, EdgeRecord
from houndgraph.graph.store import sql
from houndgraph.graph.store.catalogue import KindCatalogue
from houndgraph.graph.store.merge import EdgeKey, PreparedNodes, end_object_id, prepare_nodes
from houndgraph.graph.store.properties import StoreProperty

_EMPTY_JSON = "{}"


@dataclass(slots=True)
class WriteStats:
    """What one or more `write` calls did; counts are per batch after merging duplicates."""

    nodes: int = 0  # node records written (duplicates within a batch count once)
    edges: int = 0  # edges written (inserted, updated or already identical)
    placeholders: int = 0  # nodes created for edge ends no record had described
    deleted: int = 0  # nodes deleted (their edges go with them)
    unresolved: int = 0  # edges skipped: a `match_by: name` end matched no node
    ambiguous: int = 0  # edges skipped: a `match_by: name` end matched several nodes

    def __iadd__(self, other: WriteStats) -> WriteStats:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))
        return self


def rfc3339(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("seen_at must be timezone-aware")
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json(properties: dict) -> str:
    if not properties:
        return _EMPTY_JSON
    try:
        data = orjson.dumps(properties).decode()
    except TypeError:
        # Keys that are str subclasses (a StrEnum property name) need the slower option.
        data = orjson.dumps(properties, option=orjson.OPT_NON_STR_KEYS).decode()
    # PostgreSQL's jsonb refuses the NUL character; collectors occasionally copy one from a directory
    # attribute, and one such value must not fail the whole file. The check is a cheap substring test;
    # it can also hit a literal backslash-u0000 text, which the cleaning then leaves as it is.
    if "\\u0000" in data:
        data = orjson.dumps(_without_nul(properties), option=orjson.OPT_NON_STR_KEYS).decode()
    return data


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(item) for item in value]
    return value


class GraphStore:
    """Writes batches of node and edge records in the caller's transaction.

    One instance per transaction (one ingest task = one transaction; the caller commits). Each `write`
    stages the batch with COPY into temporary tables and applies it with set-based upserts sorted by
    key. Writers are serialised per database with a transaction-scoped advisory lock: an ingest task
    spans many batches in one transaction, and sorting inside a batch cannot order row locks across
    batches, so two unserialised tasks touching the same objects could deadlock.
    """

    def __init__(self, conn: psycopg.Connection) -> None:
        self._conn = conn
        self._catalogue = KindCatalogue(conn)
        self._transaction: str | None = None
        self._staged = False

    def kind_ids(self, names: Iterable[str]) -> list[int]:
        return self._catalogue.ids(names)

    def write(self, batch: Batch, *, seen_at: datetime) -> WriteStats:
        lastseen = rfc3339(seen_at)
        self._begin()
        stats = WriteStats()
        conn = self._conn
        if batch.deletions:
            objectids = sorted({objectid.upper() for objectid in batch.deletions})
            stats.deleted = conn.execute(sql.DELETE_NODES, {"objectids": objectids}).rowcount
        prepared = prepare_nodes(batch.nodes, batch.edges)
        stats.nodes = len(prepared.records)
        self._write_nodes(prepared, lastseen, stats)
        if batch.edges:
            self._write_edges(batch.edges, prepared, lastseen, stats)
        return stats

    def _begin(self) -> None:
        """Take the writer lock and notice a new transaction (the kind cache lives as long as one)."""
        row = self._conn.execute(
            "SELECT pg_advisory_xact_lock(%s), pg_current_xact_id()::text", (sql.WRITE_LOCK_ID,)
        ).fetchone()
        assert row is not None
        if row[1] != self._transaction:
            self._transaction = row[1]
            self._catalogue.reset()
        if not self._staged:
            self._conn.execute(sql.STAGE_NODE)
            self._conn.execute(sql.STAGE_EDGE)
            self._staged = True

    def _kind_id_lists(self, kind_lists: Iterable[list[str]]) -> dict[tuple[str, ...], list[int]]:
        """Ids for every distinct kind list, looked up before a COPY starts (the connection is busy during
        one). A batch has few distinct lists, so this is a handful of lookups per batch."""
        distinct = {tuple(kinds) for kinds in kind_lists}
        return {kinds: self._catalogue.ids(kinds) for kinds in distinct}

    def _write_nodes(self, prepared: PreparedNodes, lastseen: str, stats: WriteStats) -> None:
        conn = self._conn
        params = {"lastseen": lastseen}
        if prepared.records:
            ids = self._kind_id_lists(merged.kinds for merged in prepared.records.values())
            self._stage_nodes(
                (objectid, ids[tuple(merged.kinds)], _json(merged.properties))
                for objectid, merged in prepared.records.items()
            )
            conn.execute(sql.UPSERT_RECORDS, params)
        if prepared.kinded_ends:
            ids = self._kind_id_lists(prepared.kinded_ends.values())
            self._stage_nodes(
                (objectid, ids[tuple(kinds)], _EMPTY_JSON) for objectid, kinds in prepared.kinded_ends.items()
            )
            row = conn.execute(sql.UPSERT_KINDED_ENDS, params).fetchone()
            stats.placeholders += row[0] if row else 0
        if prepared.bare_ends:
            cursor = conn.execute(
                sql.INSERT_BARE_ENDS,
                {
                    "kind_ids": self._catalogue.ids((ADNode.Base,)),
                    "objectids": sorted(prepared.bare_ends),
                    "lastseen": lastseen,
                },
            )
            stats.placeholders += cursor.rowcount

    def _stage_nodes(self, rows: Iterable[tuple[str, list[int], str]]) -> None:
        self._conn.execute("TRUNCATE hg_stage_node")
        with self._conn.cursor().copy(sql.COPY_NODES) as copy:
            copy.set_types(["text", "int2[]", "text"])
            for row in rows:
                copy.write_row(row)

    def _resolve_names(
        self, names: set[tuple[str, str | None]], stats: WriteStats
    ) -> tuple[dict[tuple[str, str | None], str], set[tuple[str, str | None]]]:
        """OpenGraph `match_by: name` ends to object ids: exactly one node with that name (and kind, if
        the end names one) must match; ends matching none or several are reported, never guessed."""
        rows = self._conn.execute(sql.RESOLVE_NAMES, {"names": sorted({name for name, _ in names})}).fetchall()
        kind_ids = dict(
            zip(
                (kind for _, kind in names if kind is not None),
                self._catalogue.ids(kind for _, kind in names if kind is not None),
                strict=True,
            )
        )
        resolved: dict[tuple[str, str | None], str] = {}
        ambiguous: set[tuple[str, str | None]] = set()
        for name, kind in names:
            wanted = kind_ids.get(kind) if kind is not None else None
            matches = [objectid for found, objectid, ids in rows if found == name and (wanted is None or wanted in ids)]
            if len(matches) == 1:
                resolved[(name, kind)] = matches[0]
            elif matches:
                ambiguous.add((name, kind))
        return resolved, ambiguous

    def _write_edges(self, edges: list[EdgeRecord], prepared: PreparedNodes, lastseen: str, stats: WriteStats) -> None:
        by_name: dict[tuple[str, str | None], str] = {}
        ambiguous: set[tuple[str, str | None]] = set()
        if prepared.names:
            by_name, ambiguous = self._resolve_names(prepared.names, stats)

        merged: dict[EdgeKey, dict] = {}
        owned: set[EdgeKey] = set()
        kind_ids: dict[str, int] = {}
        for edge in edges:
            start = end_object_id(edge.start, by_name)
            end = end_object_id(edge.end, by_name)
            if start is None or end is None:
                if (edge.start.value, edge.start.kind) in ambiguous or (edge.end.value, edge.end.kind) in ambiguous:
                    stats.ambiguous += 1
                else:
                    stats.unresolved += 1
                continue
            key = (start, edge.kind, end)
            stored = merged.get(key)
            if stored is None:
                merged[key] = edge.properties
            else:
                # A repeated edge in one batch (e.g. the same ACE inherited twice): merge, like the upsert.
                if key not in owned:
                    stored = merged[key] = dict(stored)
                    owned.add(key)
                stored.update(edge.properties)
            if edge.kind not in kind_ids:
                kind_ids[edge.kind] = self._catalogue.id(edge.kind)

        stats.edges += len(merged)
        conn = self._conn
        conn.execute("TRUNCATE hg_stage_edge")
        with conn.cursor().copy(sql.COPY_EDGES) as copy:
            copy.set_types(["text", "text", "int2", "text"])
            for (start, kind, end), properties in merged.items():
                copy.write_row((start, end, kind_ids[kind], _json(properties)))
        stamp = _json({StoreProperty.LAST_SEEN: lastseen})
        conn.execute(sql.UPSERT_EDGES, {"stamp": stamp})
