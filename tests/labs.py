"""The two SharpHound labs of ../shared/data in one graph, ingested and analysed, for the graph view tests,
and the facts the tests check, read straight from the collector files (never from the code under test)."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file
from tests.conftest import DATA, empty_graph_tables

ADCS = DATA / "sharphound" / "v6-adcs-lab"
TESTLAB = DATA / "sharphound" / "v6-testlab"
SEEN = datetime(2024, 1, 1, tzinfo=UTC)


def load_labs(database: Database) -> None:
    with database.connect_raw() as conn:
        empty_graph_tables(conn)
        store = GraphStore(conn)
        files = [*expand_upload(ADCS / "adcs.zip", max_unzipped_bytes=1 << 30, max_ratio=1000),
                 *(file for path in sorted(TESTLAB.glob("*.json"))
                   for file in expand_upload(Path(path), max_unzipped_bytes=1 << 30, max_ratio=1000))]
        for file in files:
            for batch in read_file(file):
                store.write(batch, seen_at=SEEN)
        run_analysis(conn)
        conn.commit()


def clear(database: Database) -> None:
    with database.connect_raw(autocommit=True) as conn:
        empty_graph_tables(conn)


def records(lab: Path, name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((lab / f"{name}.json").read_text())["data"]
    return data


def merged(lab: Path, name: str) -> dict[str, dict[str, Any]]:
    """Records by upper-cased object id; one object may come in several records whose parts add up."""
    out: dict[str, dict[str, Any]] = {}
    for record in records(lab, name):
        oid = record["ObjectIdentifier"].upper()
        into = out.setdefault(oid, {"Properties": {}, "Members": [], "Aces": []})
        for key, value in record.items():
            if key == "Properties":
                into["Properties"].update(value or {})
            elif key in ("Members", "Aces"):
                into[key].extend(value or [])
            else:
                into[key] = value
    return out


class Lab:
    """Membership facts of one lab: direct memberships (primary groups included), transitive closures."""

    def __init__(self, lab: Path) -> None:
        self.users = merged(lab, "users")
        self.groups = merged(lab, "groups")
        self.computers = merged(lab, "computers")
        self.containers = merged(lab, "containers")
        self.member_of: dict[str, set[str]] = {}
        for sid, group in self.groups.items():
            for member in group["Members"]:
                self.member_of.setdefault(member["ObjectIdentifier"].upper(), set()).add(sid)
        for principal in [*self.users.values(), *self.computers.values()]:
            if principal.get("PrimaryGroupSID"):
                self.member_of.setdefault(principal["ObjectIdentifier"].upper(), set()).add(
                    principal["PrimaryGroupSID"].upper())
        # The nesting Windows implies and the reference's analysis links (reference/behaviour.md §17):
        # Domain Users and Domain Computers are Authenticated Users, who are Everyone, and so is Guest.
        for domain in merged(lab, "domains").values():
            name, sid = domain["Properties"].get("name"), domain.get("ObjectIdentifier", "").upper()
            if not name:
                continue
            everyone, authenticated = f"{name}-S-1-1-0", f"{name}-S-1-5-11"
            for member, group in ((f"{sid}-513", authenticated), (f"{sid}-515", authenticated),
                                  (authenticated, everyone), (f"{sid}-501", everyone)):
                if member.endswith("-501") and member not in self.users:
                    continue
                self.member_of.setdefault(member, set()).add(group)

    def memberships(self, principal: str) -> set[str]:
        return set(_closure(principal, lambda node: self.member_of.get(node, set())))

    def members(self, group: str) -> set[str]:
        return set(_closure(group, lambda node: {m for m, gs in self.member_of.items() if node in gs}))

    def name(self, oid: str) -> str:
        for table in (self.users, self.groups, self.computers, self.containers):
            if oid in table:
                return str(table[oid]["Properties"].get("name"))
        raise KeyError(oid)


def _closure(start: str, step: Any) -> Iterator[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in step(queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
                yield nxt
