"""Node writes: full records, placeholders for edge ends, deletions, and the node ids edges need."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter

import orjson
import psycopg

from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.kinds import ADNode
from houndgraph.graph.store import sql
from houndgraph.graph.store.encoding import json_list
from houndgraph.graph.store.merge import NameKey, PreparedBatch, add_name_edges
from houndgraph.graph.store.stats import WriteStats

NodeState = tuple[int, frozenset[int]]  # node id, kind ids
_node_id, _kind_ids = itemgetter(0), itemgetter(1)


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

    def split(self, objectids: set[str]) -> tuple[dict[str, NodeState], set[str]]:
        """The states of those of the objects cached, and the others: by set operations and `map`, no Python code
        per object (this runs between two statements of every batch)."""
        states = self._states
        missing = objectids.difference(states)
        cached = objectids.difference(missing)
        return dict(zip(cached, map(states.__getitem__, cached), strict=True)), missing

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
        """Delete nodes by object id; their edges go with them (the trigger of `node_edges.sql`)."""
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
        written.ids.update(zip(known, map(_node_id, known.values()), strict=True))
        if prepared.node_rows:
            self._upsert_records(prepared, written)
            # A record that changed nothing returns no row: read the ids of those that are edge ends.
            unchanged = self._states((ends & records).difference(written.ids))
            written.ids.update(zip(unchanged, map(_node_id, unchanged.values()), strict=True))
        self._upsert_kinded_ends(prepared, known, lastseen, written, stats)
        bare = sorted(prepared.bare_ends.difference(known))
        if bare:
            base = self._catalogue.kind_list((ADNode.Base,))
            params = {"kind_ids": base.literal, "objectids": json_list(bare), "lastseen": lastseen}
            rows = self._conn.execute(sql.INSERT_BARE_ENDS, params).fetchall()
            if rows:
                objectids, node_ids = zip(*rows, strict=True)
                self._remember(objectids, node_ids, (base.ids,) * len(rows), (1,) * len(rows), written)
            stats.placeholders += len(rows)
        return written

    def _remember(self, objectids: Sequence[str], node_ids: Sequence[int], kinds: Sequence[frozenset[int]],
                  created: Sequence[int], out: WrittenNodes) -> None:
        """Nodes just written, by column (object id, node id, kind ids, whether created): cached, and noted in
        `out`."""
        self.cache.put_all(dict(zip(objectids, zip(node_ids, kinds, strict=True), strict=True)))
        out.ids.update(zip(objectids, node_ids, strict=True))
        out.created.update(compress(node_ids, created))

    def _written(self, rows: list[tuple[str, int, str, int]], out: WrittenNodes) -> int:
        """`_remember` the RETURNING rows of an upsert, (object id, node id, `kind_ids::text`, created); how many
        it created. Column by column: the rows of a batch, no Python code per row."""
        if not rows:
            return 0
        objectids, node_ids, literals, created = zip(*rows, strict=True)
        self._remember(objectids, node_ids, self._parsed(literals), created, out)
        return sum(created)

    def _parsed(self, literals: Sequence[str]) -> tuple[frozenset[int], ...]:
        """The kind ids of each `kind_ids::text` literal (a batch holds a few distinct ones)."""
        parse = self._catalogue.parse
        kinds = {literal: parse(literal) for literal in set(literals)}
        return tuple(map(kinds.__getitem__, literals))

    def _states(self, objectids: set[str]) -> dict[str, NodeState]:
        """Node id and kind ids of those of the objects that exist: from the cache, else one lookup."""
        states, missing = self.cache.split(objectids)
        if missing:
            rows = self._conn.execute(sql.NODE_STATE, {"objectids": json_list(list(missing))}).fetchall()
            if rows:
                found_ids, node_ids, literals = zip(*rows, strict=True)
                found = dict(zip(found_ids, zip(node_ids, self._parsed(literals), strict=True), strict=True))
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
        self._written(conn.execute(sql.UPSERT_RECORDS).fetchall(), written)

    def _upsert_kinded_ends(
        self,
        prepared: PreparedBatch,
        known: dict[str, NodeState],
        lastseen: str,
        written: WrittenNodes,
        stats: WriteStats,
    ) -> None:
        ends: list[tuple[str, str]] = []
        for kinds, objectids in prepared.kinded_ends.items():
            wanted, literal = self._catalogue.kind_list(kinds)
            # New objects, and stored ones that lack one of the kinds: by set operations over the objects, and a
            # subset test per distinct stored kind list (a batch holds a few).
            given = set(objectids)
            new = given.difference(known)
            stored = given.difference(new)
            lacking = {kind_ids for kind_ids in set(map(_kind_ids, map(known.__getitem__, stored)))
                       if not wanted <= kind_ids}  # fmt: skip
            if lacking:
                new.update(objectid for objectid in stored if known[objectid][1] in lacking)
            ends += zip(new, repeat(literal))
        if not ends:
            return
        params = {"ends": orjson.dumps(ends).decode(), "lastseen": lastseen}
        stats.placeholders += self._written(self._conn.execute(sql.UPSERT_KINDED_ENDS, params).fetchall(), written)

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
