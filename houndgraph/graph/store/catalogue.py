"""The kind catalogue: kind names to the small integer ids stored in `node.kind_ids` and `edge.kind_id`."""

from __future__ import annotations

from collections.abc import Iterable

import psycopg


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

    def reset(self) -> None:
        self._ids.clear()

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
