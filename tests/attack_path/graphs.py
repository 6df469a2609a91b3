"""A small domain written as an OpenGraph document, ingested by the real readers and analysed in process.

HOUND.LOCAL: Administrator (-500, Domain Admins, has an SPN), Domain Admins (-512); Helpdesk user Hal
(-1101) with GenericAll on Domain Admins; Ann and Ben (-1102, -1103) and the disabled Cid (-1104) in the
group Support (-1200), which may reset Hal's password; Eve (-1105) with an SPN and no rights; the
workstation WS1 (-2001, no LAPS) where Administrator is logged on.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file

SID = "S-1-5-21-7-7-7"
FINDING_TABLES = "attack_path_findings, attack_path_risk_counts, attack_path_posture"


def _node(suffix: str, kind: str, name: str, **properties: Any) -> dict[str, Any]:
    return {"id": f"{SID}{suffix}", "kinds": [kind, "Base"],
            "properties": {"name": f"{name}@HOUND.LOCAL", "domainsid": SID, **properties}}


def _edge(start: str, kind: str, end: str) -> dict[str, Any]:
    return {"start": {"value": f"{SID}{start}"}, "end": {"value": f"{SID}{end}"}, "kind": kind}


NODES = [
    {"id": SID, "kinds": ["Domain", "Base"], "properties": {"name": "HOUND.LOCAL", "domainsid": SID,
                                                           "collected": True}},
    _node("-512", "Group", "DOMAIN ADMINS"),
    _node("-500", "User", "ADMINISTRATOR", enabled=True, hasspn=True),
    _node("-1101", "User", "HAL", enabled=True),
    _node("-1102", "User", "ANN", enabled=True),
    _node("-1103", "User", "BEN", enabled=True),
    _node("-1104", "User", "CID", enabled=False),
    _node("-1105", "User", "EVE", enabled=True, hasspn=True),
    _node("-1200", "Group", "SUPPORT"),
    _node("-2001", "Computer", "WS1.HOUND.LOCAL", enabled=True, haslaps=False),
]
EDGES = [
    _edge("-500", "MemberOf", "-512"),
    _edge("-1101", "GenericAll", "-512"),
    _edge("-1102", "MemberOf", "-1200"),
    _edge("-1103", "MemberOf", "-1200"),
    _edge("-1104", "MemberOf", "-1200"),
    _edge("-1200", "ForceChangePassword", "-1101"),
    _edge("-2001", "HasSession", "-500"),
]
ENABLED_OUTSIDE_TIER_ZERO = {f"{SID}{suffix}" for suffix in ("-1101", "-1102", "-1103", "-1105", "-2001")}


def reaching(target: str) -> set[str]:
    """Object ids with a path to `target` over the document's edges: a walk of our own."""
    found, frontier = {target}, [target]
    while frontier:
        current = frontier.pop()
        for edge in EDGES:
            start = edge["start"]["value"]
            if edge["end"]["value"] == current and start not in found:
                found.add(start)
                frontier.append(start)
    return found


def load(database: Database, directory: Path, document: dict[str, Any] | None = None) -> None:
    """Empty the graph and the findings, ingest the document, analyse, commit."""
    path = directory / "hound.json"
    path.write_text(json.dumps(document or {"graph": {"nodes": NODES, "edges": EDGES}}))
    with database.connect_raw() as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")
        store = GraphStore(conn)
        for file in expand_upload(path, max_unzipped_bytes=1 << 20, max_ratio=1000):
            for batch in read_file(file):
                store.write(batch, seen_at=datetime.now(UTC))
        run_analysis(conn)
        conn.commit()
