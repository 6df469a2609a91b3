"""Small hand-made graphs for rule tests: nodes by name, loaded through the graph store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg

from houndgraph.analysis import AnalysisOptions, AnalysisReport, Rule, run_rules
from houndgraph.db import Database
from houndgraph.graph.kinds import ADNode
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, NodeRecord
from houndgraph.graph.store import GraphStore
from tests.conftest import empty_graph_tables

SEEN = datetime(2024, 1, 1, tzinfo=UTC)
DOMAIN_SID = "S-1-5-21-1-2-3"


class Graph:
    """A graph under construction; `load()` writes it, `run()` analyses it, `derived()` reads results."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.batch = Batch()
        self.ids: dict[str, str] = {}  # name -> object id

    def node(self, name: str, *kinds: str, objectid: str | None = None, **properties: Any) -> str:
        objectid = (objectid or name).upper()
        self.ids[name] = objectid
        base = ADNode.Base if not any(kind.startswith("AZ") for kind in kinds) else "AZBase"
        self.batch.nodes.append(NodeRecord(objectid, (*kinds, base), {"name": name, **properties}))
        return objectid

    def edge(self, start: str, kind: str, end: str, **properties: Any) -> None:
        self.batch.edges.append(EdgeRecord(EdgeEnd(self.ids[start]), EdgeEnd(self.ids[end]), kind, properties))

    def edges(self, kind: str, pairs: Iterable[tuple[str, str]]) -> None:
        for start, end in pairs:
            self.edge(start, kind, end)

    def load(self) -> Graph:
        GraphStore(self.conn).write(self.batch, seen_at=SEEN)
        self.batch = Batch()
        return self

    def run(self, *rules: Rule, citrix: bool = False) -> AnalysisReport:
        if len(self.batch):
            self.load()
        return run_rules(self.conn, rules, options=AnalysisOptions(citrix_rdp_support=citrix))

    def derived(self, kind: str) -> set[tuple[str, str]]:
        rows = self.conn.execute(
            """SELECT s.properties->>'name', t.properties->>'name' FROM edge e
               JOIN kind k ON k.id = e.kind_id JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id
               WHERE k.name = %s""",
            (kind,),
        ).fetchall()
        return {(start, end) for start, end in rows}

    def derived_ids(self, kind: str) -> set[tuple[str, str]]:
        """Like `derived`, by object id (for nodes sharing a name, e.g. a CA and its root certificate)."""
        rows = self.conn.execute(
            """SELECT s.properties->>'objectid', t.properties->>'objectid' FROM edge e
               JOIN kind k ON k.id = e.kind_id JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id
               WHERE k.name = %s""",
            (kind,),
        ).fetchall()
        return {(start, end) for start, end in rows}

    def edge_properties(self, start: str, kind: str, end: str) -> dict[str, Any]:
        row = self.conn.execute(
            """SELECT e.properties FROM edge e JOIN kind k ON k.id = e.kind_id
               JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id
               WHERE k.name = %s AND s.properties->>'objectid' = %s AND t.properties->>'objectid' = %s""",
            (kind, self.ids[start], self.ids[end]),
        ).fetchone()
        assert row is not None, f"no {kind} edge {start} -> {end}"
        return row[0]

    def domain(self, name: str = "D", sid: str = DOMAIN_SID, **properties: Any) -> str:
        return self.node(name, ADNode.Domain, objectid=sid, domainsid=sid, collected=True, **properties)


@contextmanager
def drawn(database: Database, draw: Callable[[Graph], None]) -> Iterator[dict[str, int]]:
    """A graph drawn by `draw`, loaded and committed for the service to read: its node ids by name while the
    block runs, the graph emptied after."""
    with database.connect_raw() as conn:
        graph = Graph(conn)
        draw(graph)
        graph.load()
        conn.commit()
        rows = conn.execute("SELECT properties->>'name', id FROM node").fetchall()
    try:
        yield {name: node_id for name, node_id in rows}
    finally:
        with database.connect_raw(autocommit=True) as conn:
            empty_graph_tables(conn)
