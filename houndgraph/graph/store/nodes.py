"""Node writes: full records, placeholders for edge ends, deletions, and the node ids edges need."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson
import psycopg

from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.kinds import ADNode
from houndgraph.graph.store import sql
from houndgraph.graph.store.encoding import json_list
from houndgraph.graph.store.merge import NameKey, PreparedBatch, add_name_edges
from houndgraph.graph.store.stats import WriteStats

NodeState = tuple[int, frozenset[int]]  # node id, kind ids


class NodeCache:
    """Node id and kind ids by object id, for objects the current transaction has read or written.

    Edge ends repeat heavily (every ACL names the same few admin groups, every object its OU), so
    most ends of a batch were seen in an earlier one and need neither a lookup nor an upsert. Valid
    only within one transaction and while nobody else writes nodes (hence the writer lock); the store
    clears it when a new transaction begins. Bounded: emptied whenever it reaches `limit` entries (about 320
    bytes each, so 32 MB at most). At 100k objects, ingest looked up 339k objects with 20k entries, 274k with 100k
    and 254k with no limit: a file's batches name the same members, sessions and children again.
    """

    def __init__(self, limit: int = 100_000) -> None:
        self._limit = limit
        self._states: dict[str, NodeState] = {}

    def clear(self) -> None:
        self._states.clear()

    def put_all(self, states: dict[str, NodeState]) -> None:
        """Remember each of `states`; emptied first whenever they would take it past `limit` entries."""
        if len(self._states) + len(states) > self._limit:
            self._states.clear()
        self._states.update(states)

    def split(self, objectids: Iterable[str]) -> tuple[dict[str, NodeState], list[str]]:
        """The states of those of the objects cached, and the others."""
        get = self._states.get
        found: dict[str, NodeState] = {}
        missing = []
        for objectid in objectids:
            state = get(objectid)
            if state is None:
                missing.append(objectid)
            else:
                found[objectid] = state
        return found, missing

    def forget(self, objectids: Iterable[str]) -> None:
        for objectid in objectids:
            self._states.pop(objectid, None)


@dataclass(slots=True)
class WrittenNodes:
    # Node id of every object an edge of the batch starts or ends at.
    ids: dict[str, int] = field(default_factory=dict)
    # Nodes this batch created: no stored edge can touch them yet.
    created: set[int] = field(default_factory=set)


class NodeWriter:
    def __init__(self, conn: psycopg.Connection, catalogue: KindCatalogue) -> None:
        self._conn = conn
        self._catalogue = catalogue
        self.cache = NodeCache()

    def delete(self, objectids: Iterable[str]) -> int:
        """Delete nodes by object id; their edges go with them (the trigger of migration 0005)."""
        wanted = sorted({objectid.upper() for objectid in objectids})
        self.cache.forget(wanted)
        return self._conn.execute(sql.DELETE_NODES, {"objectids": json_list(wanted)}).rowcount

    def write(self, prepared: PreparedBatch, lastseen: str, stats: WriteStats) -> WrittenNodes:
        """Upsert the records and the placeholder ends of a batch."""
        written = WrittenNodes()
        records = prepared.record_ids
        ends = prepared.end_objectids()
        # What exists of the other ends decides which need a placeholder or new kinds; most need neither.
        known = self._states(ends - records)
        written.ids.update((objectid, state[0]) for objectid, state in known.items())
        if prepared.node_rows:
            self._upsert_records(prepared, written)
            # A record that changed nothing returns no row: read the ids of those that are edge ends.
            unchanged = self._states((ends & records).difference(written.ids))
            written.ids.update((objectid, state[0]) for objectid, state in unchanged.items())
        self._upsert_kinded_ends(prepared, known, lastseen, written, stats)
        bare = sorted(objectid for objectid in prepared.bare_ends if objectid not in known)
        if bare:
            base = self._catalogue.kind_list((ADNode.Base,))
            params = {"kind_ids": base.literal, "objectids": json_list(bare), "lastseen": lastseen}
            rows = self._conn.execute(sql.INSERT_BARE_ENDS, params).fetchall()
            self._remember([(objectid, node_id, base.ids, 1) for objectid, node_id in rows], written)
            stats.placeholders += len(rows)
        return written

    def _remember(self, rows: list[tuple[str, int, frozenset[int], int]], out: WrittenNodes) -> None:
        """Rows of (object id, node id, kind ids, whether created) just written: cached, and noted in `out`."""
        self.cache.put_all({objectid: (node_id, kinds) for objectid, node_id, kinds, _ in rows})
        out.ids.update((objectid, node_id) for objectid, node_id, _, _ in rows)
        out.created.update(node_id for _, node_id, _, created in rows if created)

    def _parsed(self, rows: list[tuple[str, int, str, int]]) -> list[tuple[str, int, frozenset[int], int]]:
        """RETURNING rows of (object id, node id, `kind_ids::text`, created) with their kind ids parsed."""
        parse = self._catalogue.parse
        kinds = {literal: parse(literal) for literal in {row[2] for row in rows}}
        return [(objectid, node_id, kinds[literal], created) for objectid, node_id, literal, created in rows]

    def _states(self, objectids: Iterable[str]) -> dict[str, NodeState]:
        """Node id and kind ids of those of the objects that exist: from the cache, else one lookup."""
        states, missing = self.cache.split(objectids)
        if missing:
            rows = self._conn.execute(sql.NODE_STATE, {"objectids": json_list(missing)}).fetchall()
            found = {objectid: (node_id, kinds) for objectid, node_id, kinds, _ in self._parsed(
                [(objectid, node_id, literal, 0) for objectid, node_id, literal in rows])}
            self.cache.put_all(found)
            states.update(found)
        return states

    def _upsert_records(self, prepared: PreparedBatch, written: WrittenNodes) -> None:
        conn = self._conn
        # Kind ids are looked up before the COPY starts: the connection is busy during one.
        rows = prepared.node_rows
        literals = [self._catalogue.kind_list(kinds).literal for kinds in rows.kinds]
        conn.execute(sql.CLEAR_STAGED_NODES)
        with conn.cursor().copy(sql.COPY_NODE_TEXT) as copy:
            # Each row ends in its kind list's ids (`NodeRows`); an array literal holds no tab, newline or backslash.
            for literal, text in zip(literals, rows.texts, strict=True):
                copy.write(text.replace("\n", f"\t{literal}\n").encode())
        self._remember(self._parsed(conn.execute(sql.UPSERT_RECORDS).fetchall()), written)

    def _upsert_kinded_ends(
        self,
        prepared: PreparedBatch,
        known: dict[str, NodeState],
        lastseen: str,
        written: WrittenNodes,
        stats: WriteStats,
    ) -> None:
        ends = []
        for objectid, end_kinds in prepared.end_kinds.items():
            kinds = self._catalogue.kind_list(end_kinds)
            state = known.get(objectid)
            if state is None or not kinds.ids <= state[1]:
                ends.append((objectid, kinds.literal))
        if not ends:
            return
        params = {"ends": orjson.dumps(ends).decode(), "lastseen": lastseen}
        rows = self._parsed(self._conn.execute(sql.UPSERT_KINDED_ENDS, params).fetchall())
        self._remember(rows, written)
        stats.placeholders += sum(created for _, _, _, created in rows)

    def resolve_names(self, prepared: PreparedBatch, stats: WriteStats) -> dict[str, int]:
        """Resolve OpenGraph `match_by: name` ends: exactly one node with that name (and kind, if the end
        names one) must match; an edge with an end matching none or several is counted and skipped,
        never guessed. Merges the resolved edges into the batch; returns the node ids of their ends."""
        names = prepared.names
        wanted = json_list(list({name for name, _ in names}))
        rows = self._conn.execute(sql.RESOLVE_NAMES, {"names": wanted}).fetchall()
        kinds = sorted({kind for _, kind in names if kind is not None})
        kind_ids = dict(zip(kinds, self._catalogue.ids(kinds), strict=True))
        parse = self._catalogue.parse
        resolved: dict[NameKey, str] = {}
        ambiguous: set[NameKey] = set()
        node_ids: dict[str, int] = {}
        for name, kind in names:
            wanted_kind = kind_ids.get(kind) if kind is not None else None
            matches = [row for row in rows
                       if row[0] == name and (wanted_kind is None or wanted_kind in parse(row[2]))]
            if len(matches) == 1:
                _, objectid, _, node_id = matches[0]
                resolved[(name, kind)] = objectid
                node_ids[objectid] = node_id
            elif matches:
                ambiguous.add((name, kind))
        unresolved, skipped_ambiguous = add_name_edges(prepared, resolved, ambiguous)
        stats.unresolved += unresolved
        stats.ambiguous += skipped_ambiguous
        return node_ids
