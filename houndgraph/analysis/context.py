"""What every rule reads: the connection, kind ids, node and edge lookups, the membership snapshot.

Rules see graph ids (`node.id`) only; object ids matter to nobody here except where a rule matches on
a SID suffix. All lookups are plain SQL on the caller's connection, inside the analysis transaction,
so a rule sees the edges the rules before it wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray

from houndgraph.analysis.membership import Membership
from houndgraph.graph.connection import RAISE_WORK_MEM
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.kinds import ADEdge, ADNode, AZEdge
from houndgraph.graph.store import rfc3339

# Well-known SID suffixes the rules match on (the reference's `wellknown` package).
EVERYONE_SUFFIX = "S-1-1-0"
AUTHENTICATED_USERS_SUFFIX = "S-1-5-11"
DOMAIN_ADMINS_SUFFIX = "-512"
ENTERPRISE_ADMINS_SUFFIX = "-519"

# The kinds rules read whole (`Context.edges`). The edge table has no index on the kind alone, so each read was a
# pass over the whole table; the first read takes every one of these kinds in the same pass, and the others are
# then served from memory (until a rule writes the kind).
SHARED_READS = (
    ADEdge.MemberOf, ADEdge.MemberOfLocalGroup, ADEdge.Contains, ADEdge.RemoteInteractiveLogonRight,
    ADEdge.BackupPrivilege, ADEdge.RestorePrivilege, ADEdge.IssuedSignedBy, ADEdge.EnterpriseCAFor, ADEdge.RootCAFor,
    ADEdge.NTAuthStoreFor, ADEdge.TrustedForNTAuth, ADEdge.SameForestTrust, ADEdge.DCFor, ADEdge.EnrollOnBehalfOf,
    ADEdge.ExtendedByPolicy, ADEdge.OIDGroupLink, AZEdge.MemberOf, AZEdge.Contains, AZEdge.HasRole,
)
# Each column as one bytea of big-endian int8s per kind: one client round for all of them.
_EDGES_BY_KIND = """
SELECT kind_id, string_agg(int8send(start_id), ''::bytea), string_agg(int8send(end_id), ''::bytea)
FROM edge WHERE kind_id = ANY(%s) GROUP BY kind_id
"""


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    citrix_rdp_support: bool = False
    # Zones also take the OUs, containers and GPOs above their members (feature flag auto_tag_t0_parent_objects).
    tag_parent_objects: bool = True
    # Edge kinds uploaded schema extensions declare traversable, sorted: the findings' reach follows them beside
    # the built-in ones (part of the run's fingerprint, so a change derives everything again).
    extension_traversable_edges: tuple[str, ...] = ()


@dataclass
class Context:
    conn: psycopg.Connection
    now: datetime
    options: AnalysisOptions = field(default_factory=AnalysisOptions)
    # Data several rules share within a run (e.g. the ADCS lookups), keyed by the module that owns it.
    cache: dict[str, Any] = field(default_factory=dict)
    # Kind id -> its edges as an (n, 2) array of (start, end), for the kinds read so far (see SHARED_READS).
    _edges_read: dict[int, NDArray[np.int64]] = field(default_factory=dict)

    @cached_property
    def catalogue(self) -> KindCatalogue:
        return KindCatalogue(self.conn)

    @property
    def lastseen(self) -> str:
        return rfc3339(self.now)

    def kind_id(self, name: str) -> int | None:
        """The id of a kind that exists; None when no node or edge has ever used it (nothing to find)."""
        return self.catalogue.existing_id(name)

    def kind_ids(self, names: Iterable[str]) -> list[int]:
        return self.catalogue.existing_ids(names)

    # --- nodes ------------------------------------------------------------------------------------

    def nodes(self, kind: str, where: str = "TRUE", params: dict[str, Any] | None = None,
              columns: Sequence[str] = ()) -> list[tuple[Any, ...]]:
        """Rows `(id, properties->>c1, ...)` of nodes of `kind` matching a SQL condition on `n`."""
        kind_id = self.kind_id(kind)
        if kind_id is None:
            return []
        selected = "".join(f", n.properties -> %(c{i})s" for i in range(len(columns)))
        query = f"SELECT n.id{selected} FROM node n WHERE n.kind_ids @> ARRAY[%(kind)s]::smallint[] AND ({where})"
        arguments: dict[str, Any] = {"kind": kind_id, **(params or {})}
        arguments.update({f"c{i}": column for i, column in enumerate(columns)})
        return self.conn.execute(query, arguments).fetchall()

    def node_ids(self, kind: str, where: str = "TRUE", params: dict[str, Any] | None = None) -> list[int]:
        return [row[0] for row in self.nodes(kind, where, params)]

    def has_kind(self, ids: Iterable[int], kind: str) -> set[int]:
        """The subset of `ids` whose node carries `kind`."""
        kind_id = self.kind_id(kind)
        ids = list(ids)
        if kind_id is None or not ids:
            return set()
        rows = self.conn.execute(
            "SELECT id FROM node WHERE id = ANY(%s) AND kind_ids @> ARRAY[%s]::smallint[]", (ids, kind_id)
        ).fetchall()
        return {row[0] for row in rows}

    def properties(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        ids = list(ids)
        if not ids:
            return {}
        rows = self.conn.execute("SELECT id, properties FROM node WHERE id = ANY(%s)", (ids,)).fetchall()
        return dict(rows)

    @contextmanager
    def work_mem(self, size: str) -> Iterator[None]:
        """`work_mem` raised to `size` (never lowered) for the statements run inside, as it was after."""
        row = self.conn.execute(RAISE_WORK_MEM, {"work_mem": size}).fetchone()
        try:
            yield
        finally:
            if row is not None:
                self.conn.execute("SELECT set_config('work_mem', %s, true)", (row[0],))

    # --- edges ------------------------------------------------------------------------------------

    def edges(self, *kinds: str) -> list[tuple[int, int]]:
        """All `(start, end)` pairs of edges of the given kinds."""
        pairs = self.edge_array(*kinds)
        return list(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True))

    def edge_array(self, *kinds: str) -> NDArray[np.int64]:
        """All edges of the given kinds as an (n, 2) array of (start, end)."""
        ids = self.kind_ids(kinds)
        missing = [kind for kind in ids if kind not in self._edges_read]
        if missing:
            shared = [kind for kind in self.kind_ids(SHARED_READS) if kind not in self._edges_read]
            wanted = sorted({*missing, *shared})
            self._edges_read.update(dict.fromkeys(wanted, np.empty((0, 2), dtype=np.int64)))
            for kind, starts, ends in self.conn.execute(_EDGES_BY_KIND, (wanted,), binary=True):
                self._edges_read[kind] = np.column_stack(
                    [np.frombuffer(column, dtype=">i8").astype(np.int64) for column in (starts, ends)])
        if not ids:
            return np.empty((0, 2), dtype=np.int64)
        return np.concatenate([self._edges_read[kind] for kind in ids])

    def wrote_edges(self, kind: str) -> None:
        """A rule wrote edges of `kind`: the next read takes them from the table again."""
        kind_id = self.kind_id(kind)
        if kind_id is not None:
            self._edges_read.pop(kind_id, None)

    def sources(self, end_ids: Iterable[int], *kinds: str) -> dict[int, set[int]]:
        """For each end node, the start nodes of its inbound edges of the given kinds."""
        ids = self.kind_ids(kinds)
        end_ids = list(end_ids)
        found: dict[int, set[int]] = {end: set() for end in end_ids}
        if not ids or not end_ids:
            return found
        rows = self.conn.execute(
            "SELECT end_id, start_id FROM edge WHERE end_id = ANY(%s) AND kind_id = ANY(%s)", (end_ids, ids)
        ).fetchall()
        for end, start in rows:
            found[end].add(start)
        return found

    # --- shared snapshots -------------------------------------------------------------------------

    @cached_property
    def membership(self) -> Membership:
        """Group membership (MemberOf and MemberOfLocalGroup), loaded once per run: no rule writes it."""
        pairs = self.edge_array(ADEdge.MemberOf, ADEdge.MemberOfLocalGroup)
        return Membership(pairs, excluded=self.shortcut_groups)

    @cached_property
    def shortcut_groups(self) -> set[int]:
        """Everyone and Authenticated Users: every principal is in them, so expansion stops there."""
        rows = self.nodes(
            ADNode.Group, "n.properties->>'objectid' LIKE %(everyone)s OR n.properties->>'objectid' LIKE %(auth)s",
            {"everyone": f"%-{EVERYONE_SUFFIX}", "auth": f"%-{AUTHENTICATED_USERS_SUFFIX}"},
        )
        return {row[0] for row in rows}

    @cached_property
    def collected_domains(self) -> list[tuple[int, str]]:
        """`(id, domain SID)` of the domains a collector actually enumerated (`collected: true`)."""
        rows = self.nodes(
            ADNode.Domain, "n.properties->'collected' = 'true'::jsonb",
            columns=("domainsid", "objectid"),
        )
        return [(row[0], str(row[1] or row[2])) for row in rows if (row[1] or row[2])]
