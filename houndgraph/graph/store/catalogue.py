"""The kind catalogue: kind names to the small integer ids stored in `node.kind_ids` and `edge.kind_id`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import psycopg


class KindList(NamedTuple):
    ids: frozenset[int]
    literal: str


class KindCatalogue:
    """Kind ids with a cache, creating missing kinds on first use.

    A kind created here is inserted in the caller's transaction, so it disappears if that transaction
    rolls back; the cache is therefore scoped to one transaction (`reset` when a new one starts).
    Concurrent creators are safe: `ON CONFLICT DO NOTHING` on the unique name, and a second process
    inserting the same new name waits for the first to commit, then reads its id.
    """

    def __init__(self, conn: psycopg.Connection) -> None:
        self._conn = conn
        self._ids: dict[str, int] = {}
        self._lists: dict[tuple[str, ...], KindList] = {}
        self._parsed: dict[str, frozenset[int]] = {}

    def reset(self) -> None:
        self._ids.clear()
        self._lists.clear()

    def kind_list(self, kinds: Iterable[str]) -> KindList:
        """The ids of a list of kinds, as a set and as the array literal staged by COPY."""
        key = tuple(kinds)
        found = self._lists.get(key)
        if found is None:
            ids = self.ids(key)
            found = self._lists[key] = KindList(frozenset(ids), "{" + ",".join(map(str, ids)) + "}")
        return found

    def parse(self, literal: str) -> frozenset[int]:
        """Kind ids from a `kind_ids::text` array literal. Read through a cache: there are only a few
        distinct lists, and psycopg would parse a smallint[] column in Python, row by row."""
        found = self._parsed.get(literal)
        if found is None:
            found = self._parsed[literal] = frozenset(int(kind) for kind in literal.strip("{}").split(",") if kind)
        return found

    def id(self, name: str) -> int:
        found = self._ids.get(name)
        if found is None:
            self.ids((name,))
            found = self._ids[name]
        return found

    def ids(self, names: Iterable[str]) -> list[int]:
        names = list(names)
        missing = sorted({name for name in names if name not in self._ids})
        if missing:
            # Sorted, so two processes creating the same new kinds lock the names in the same order.
            self._conn.execute(
                "INSERT INTO kind (name) SELECT unnest(%s::text[]) ORDER BY 1 ON CONFLICT (name) DO NOTHING",
                (missing,),
            )
            rows = self._conn.execute("SELECT name, id FROM kind WHERE name = ANY(%s)", (missing,))
            self._ids.update(rows.fetchall())
        return [self._ids[name] for name in names]
