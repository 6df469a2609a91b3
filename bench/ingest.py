"""Ingest throughput: a synthetic SharpHound v6 collection through the real readers and graph store.

    .venv/bin/python bench/ingest.py [--objects 100000] [--batch-size 20000] [--sequential] [--tuned]
                                     [--set NAME=VALUE ...] [--statements] [--bulk] [--index-after INDEX]
    .venv/bin/python bench/ingest.py --read-only [--objects 100000]
    .venv/bin/python bench/ingest.py --objects 1000000 --new-computers 75000 --into COPY_OF_DATA_DIR [--statements]

Writes a collection of N objects as real JSON files, one record at a time (nothing is held in
memory): one domain, OUs, GPOs, containers, users (55 %), computers (25 %) with sessions and local
groups, and groups (15 %) nested in a tree, with ACEs on everything, about ten edges per object.
Then starts a fresh embedded PostgreSQL, migrates it, and ingests each file as an ingest task
(`read_file` batches into `GraphStore.write_all`, one transaction per file), printing objects/s,
edges/s, wall time, the CPU seconds of this process and of PostgreSQL (by process: ended backends count under
"server"), peak RSS and the machine. `--tuned` first applies TUNED_SETTINGS to the server, `--set` any setting;
`--sequential` calls `GraphStore.write` per batch instead of `write_all` (as the datapipe did). `--bulk` ingests as
the datapipe ingests a large job (`graph.store.bulk`). `--statements` adds where the server's time and I/O went.
`--read-only` starts no database: it prints the CPU seconds the reading process spends on each file, reading it
(checking, parsing, converting), preparing its batches for the writer and pickling them for the hand-over, a figure
that other work on the machine disturbs far less than wall time.
`--into DIR --new-computers N` measures a large file at the size of a kept database without ingesting that size
again: it ingests, into a service data directory DIR (a copy: it is changed), two files of N computers that the
stored collection of `--objects` objects does not hold, whose sessions, local groups, ACEs and OUs name its users and
groups (the first file fills the buffer cache, the second runs in that state).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import pickle
import platform
import resource
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from houndgraph.db import Database
from houndgraph.embedded_server import restart_embedded
from houndgraph.graph.store import GraphStore, WriteStats, bulk, rfc3339
from houndgraph.graph.store.columns import prepare_cut
from houndgraph.graph.store.read_ahead import bulk_tuning
from houndgraph.ingest import IngestFile, read_file
from houndgraph.ingest.reader import read_cuts
from houndgraph.settings import Settings
from houndgraph.worker.loop_repository import SHARPHOUND_READING_ORDER

DOMAIN = "BENCH.LOCAL"
DOMAIN_SID = "S-1-5-21-1004336348-1177238915-682003330"
# Well-known principals every ACL names: most ACE ends in a real domain are these few groups.
DOMAIN_ADMINS = f"{DOMAIN_SID}-512"
ENTERPRISE_ADMINS = f"{DOMAIN_SID}-519"
KEY_ADMINS = f"{DOMAIN_SID}-526"
DOMAIN_USERS = f"{DOMAIN_SID}-513"
DOMAIN_COMPUTERS = f"{DOMAIN_SID}-515"
ADMINISTRATORS = f"{DOMAIN}-S-1-5-32-544"
ACCOUNT_OPERATORS = f"{DOMAIN}-S-1-5-32-548"
WELL_KNOWN_GROUPS = (DOMAIN_ADMINS, ENTERPRISE_ADMINS, KEY_ADMINS, DOMAIN_USERS, DOMAIN_COMPUTERS,
                     ADMINISTRATORS, ACCOUNT_OPERATORS)  # fmt: skip
FIRST_RID = 1100
# Settings tried against the embedded server's (shared_buffers 128MB until the service set an eighth of memory up to
# 1GB, max_wal_size 1GB and checkpoint_timeout 5min until it set 8GB and 30min, `EMBEDDED_SETTINGS`: `--set
# shared_buffers=128MB --set max_wal_size=1GB --set checkpoint_timeout=5min` measures the old ones). At 300k objects,
# in SharpHound's order with a lastseen per file, these cut the WAL from 3.8
# to 3.2 GB but not the time (71.7 s, 73.6 s tuned); in the reading order under one lastseen, the checkpoint
# settings alone cut it from 3.55 to 2.34 GB and the full-page images from 170k to 6k. At 100k objects (load 4-5)
# PostgreSQL spent 29.5 s of CPU with the defaults and 36.9 s tuned. `wal_init_zero=off` (no zero-filled new WAL
# segments) left the WAL writer's CPU at 1.4 s against 1.7 s: not worth a setting.
TUNED_SETTINGS = {
    "shared_buffers": "512MB",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
}


@dataclass(frozen=True)
class Layout:
    """How N objects split into kinds; object i of a kind has RID FIRST_RID + offset + i."""

    users: int
    computers: int
    groups: int
    ous: int
    gpos: int
    containers: int
    # Added to new computers' RIDs (`--new-computers`): objects a stored collection of this layout does not hold.
    computer_rid_offset: int = 0

    @classmethod
    def of(cls, objects: int) -> Layout:
        ous = max(1, objects // 100)
        gpos = max(1, objects // 200)
        containers = max(1, objects // 200)
        groups = max(8, objects * 15 // 100)
        computers = max(1, objects * 25 // 100)
        users = max(1, objects - ous - gpos - containers - groups - computers - 1)
        # Memberships are spread by i % groups and (7 i + 3) % groups: 7 must be invertible modulo groups.
        while groups % 7 == 0:
            groups += 1
        return cls(users, computers, groups, ous, gpos, containers)

    def user(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + i}"

    def computer(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + self.users + self.computer_rid_offset + i}"

    def group(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + self.users + self.computers + i}"

    def ou(self, i: int) -> str:
        return f"0B5E{i:04X}-6B36-4E4A-9F61-{i:012X}"

    def gpo(self, i: int) -> str:
        return f"6AC1{i:04X}-31F1-4C1A-8B0E-{i:012X}"

    def container(self, i: int) -> str:
        return f"C0E7{i:04X}-9A2D-4B9B-A4F5-{i:012X}"


def _ace(principal: str, kind: str, right: str, inherited: bool) -> dict[str, Any]:
    ace = {"PrincipalSID": principal, "PrincipalType": kind, "RightName": right, "IsInherited": inherited}
    if inherited:
        ace["InheritanceHash"] = f"{zlib.crc32(f'{principal}/{right}'.encode()):08X}"
    return ace


def _aces(layout: Layout, i: int) -> list[dict[str, Any]]:
    """Six ACEs: the defaults every object carries, and one delegation to a help-desk group."""
    helpdesk = layout.group(i % min(layout.groups, 50))
    return [
        _ace(DOMAIN_ADMINS, "Group", "Owns", False),
        _ace(DOMAIN_ADMINS, "Group", "GenericAll", False),
        _ace(ACCOUNT_OPERATORS, "Group", "GenericAll", False),
        _ace(ENTERPRISE_ADMINS, "Group", "GenericAll", True),
        _ace(ADMINISTRATORS, "Group", "WriteDacl", True),
        _ace(helpdesk, "Group", ("ForceChangePassword", "GenericWrite", "AddMember")[i % 3], i % 2 == 0),
    ]


def _base(name: str, i: int) -> dict[str, Any]:
    return {
        "domain": DOMAIN,
        "name": f"{name}@{DOMAIN}",
        "distinguishedname": f"CN={name},OU=OU{i % 100},DC=BENCH,DC=LOCAL",
        "domainsid": DOMAIN_SID,
        "highvalue": False,
        "description": None if i % 3 else f"synthetic object {i}",
        "whencreated": 1600000000 + i,
    }


def _contained(layout: Layout, i: int) -> dict[str, str]:
    return {"ObjectIdentifier": layout.ou(i % layout.ous), "ObjectType": "OU"}


def _common(layout: Layout, objectid: str, i: int) -> dict[str, Any]:
    return {"ObjectIdentifier": objectid, "Aces": _aces(layout, i), "IsDeleted": False,
            "IsACLProtected": False, "ContainedBy": _contained(layout, i)}  # fmt: skip


def users(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.users):
        properties = _base(f"USER{i}", i) | {
            "samaccountname": f"user{i}", "sensitive": False, "dontreqpreauth": i % 500 == 0,
            "passwordnotreqd": False, "unconstraineddelegation": False, "pwdneverexpires": i % 7 == 0,
            "enabled": i % 10 != 0, "trustedtoauth": False, "lastlogon": 1700000000 + i,
            "lastlogontimestamp": 1700000000 + i, "pwdlastset": 1690000000 + i,
            "serviceprincipalnames": [f"HTTP/web{i}.bench.local"] if i % 250 == 0 else [],
            "hasspn": i % 250 == 0, "displayname": f"User {i}", "email": f"user{i}@bench.local",
            "title": None, "homedirectory": None, "userpassword": None, "unixpassword": None,
            "unicodepassword": None, "sfupassword": None, "logonscript": None, "admincount": i % 1000 == 0,
            "sidhistory": [],
        }  # fmt: skip
        yield {"Properties": properties, "AllowedToDelegate": [], "PrimaryGroupSID": DOMAIN_USERS,
               "HasSIDHistory": [], "SPNTargets": []} | _common(layout, layout.user(i), i)  # fmt: skip


def _session(user: str, computer: str) -> dict[str, str]:
    return {"UserSID": user, "ComputerSID": computer}


def _local_group(computer: str, rid: int, members: list[tuple[str, str]]) -> dict[str, Any]:
    return {"ObjectIdentifier": f"{computer}-{rid}", "Name": f"LOCALGROUP{rid}", "Collected": True,
            "Results": [{"ObjectIdentifier": oid, "ObjectType": kind} for oid, kind in members],
            "LocalNames": [], "FailureReason": None}  # fmt: skip


def computers(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.computers):
        objectid = layout.computer(i)
        properties = _base(f"WS{i}.{DOMAIN}", i) | {
            "samaccountname": f"WS{i}$", "haslaps": i % 2 == 0, "enabled": True, "unconstraineddelegation": False,
            "trustedtoauth": False, "lastlogon": 1700000000 + i, "lastlogontimestamp": 1700000000 + i,
            "pwdlastset": 1690000000 + i, "serviceprincipalnames": [f"HOST/WS{i}", f"HOST/WS{i}.{DOMAIN}"],
            "operatingsystem": "Windows 11 Enterprise", "sidhistory": [],
        }  # fmt: skip
        sessions = [_session(layout.user((3 * i + k) % layout.users), objectid) for k in range(2)]
        admins = [(DOMAIN_ADMINS, "Group"), (layout.group(i % layout.groups), "Group")]
        remote = [(layout.group((i + 1) % layout.groups), "Group")]
        yield {
            "Properties": properties, "PrimaryGroupSID": DOMAIN_COMPUTERS, "AllowedToDelegate": [],
            "AllowedToAct": [], "HasSIDHistory": [], "DumpSMSAPassword": [],
            "Sessions": {"Results": sessions, "Collected": True, "FailureReason": None},
            "PrivilegedSessions": {"Results": [], "Collected": True, "FailureReason": None},
            "RegistrySessions": {"Results": [], "Collected": True, "FailureReason": None},
            "LocalGroups": [_local_group(objectid, 544, admins), _local_group(objectid, 555, remote)],
            "UserRights": [], "Status": None,
            "DCRegistryData": {"CertificateMappingMethods": None, "StrongCertificateBindingEnforcement": None},
        } | _common(layout, objectid, i)  # fmt: skip


def _progression(start: int, step: int, below: int) -> range:
    return range(start, below, step)


def groups(layout: Layout) -> Iterator[dict[str, Any]]:
    """Each user is in groups i % G and (7 i + 3) % G; group j nests in group (j - 1) // 4."""
    g = layout.groups
    inverse_of_7 = pow(7, -1, g)
    for j in range(g):
        members = [{"ObjectIdentifier": layout.user(i), "ObjectType": "User"}
                   for i in _progression(j, g, layout.users)]  # fmt: skip
        first = (inverse_of_7 * (j - 3)) % g
        members += [{"ObjectIdentifier": layout.user(i), "ObjectType": "User"}
                    for i in _progression(first, g, layout.users)]  # fmt: skip
        members += [{"ObjectIdentifier": layout.group(child), "ObjectType": "Group"}
                    for child in range(4 * j + 1, min(4 * j + 5, g))]  # fmt: skip
        properties = _base(f"GROUP{j}", j) | {"samaccountname": f"group{j}", "admincount": False}
        yield {"Properties": properties, "Members": members, "HasSIDHistory": []} | _common(layout, layout.group(j), j)


def _gpo_changes() -> dict[str, list[Any]]:
    return {"LocalAdmins": [], "RemoteDesktopUsers": [], "DcomUsers": [], "PSRemoteUsers": [], "AffectedComputers": []}


def _typed(objectid: str, kind: str) -> dict[str, str]:
    return {"ObjectIdentifier": objectid, "ObjectType": kind}


def ous(layout: Layout) -> Iterator[dict[str, Any]]:
    """OU i holds object i of each kind modulo the OU count (as `ContainedBy` says from the other side), and
    its GPO makes a help-desk group local administrator of its computers."""
    for i in range(layout.ous):
        properties = _base(f"OU{i}", i) | {"blocksinheritance": False}
        links = [{"IsEnforced": i % 5 == 0, "GUID": layout.gpo(i % layout.gpos)}]
        computers = [_typed(layout.computer(n), "Computer") for n in range(i, layout.computers, layout.ous)]
        children = [_typed(layout.user(n), "User") for n in range(i, layout.users, layout.ous)]
        children += [_typed(layout.group(n), "Group") for n in range(i, layout.groups, layout.ous)]
        changes = _gpo_changes() | {"AffectedComputers": computers,
                                    "LocalAdmins": [_typed(layout.group(i % min(layout.groups, 50)), "Group")]}
        record = {"Properties": properties, "Links": links, "ChildObjects": children + computers,
                  "GPOChanges": changes}  # fmt: skip
        record |= _common(layout, layout.ou(i), i)
        record["ContainedBy"] = {"ObjectIdentifier": DOMAIN_SID, "ObjectType": "Domain"}
        yield record


def gpos(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.gpos):
        properties = _base(f"GPO{i}", i) | {"gpcpath": f"\\\\{DOMAIN}\\SYSVOL\\{DOMAIN}\\POLICIES\\{{{layout.gpo(i)}}}"}
        yield {"Properties": properties} | _common(layout, layout.gpo(i), i) | {"ContainedBy": None}


def containers(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.containers):
        yield {"Properties": _base(f"CONTAINER{i}", i), "ChildObjects": []} | _common(layout, layout.container(i), i)


def domains(layout: Layout) -> Iterator[dict[str, Any]]:
    properties = _base(DOMAIN, 0) | {"name": DOMAIN, "highvalue": True, "functionallevel": "2016"}
    yield {
        "Properties": properties, "Trusts": [], "GPOChanges": _gpo_changes(),
        "Links": [{"IsEnforced": False, "GUID": layout.gpo(0)}],
        "ChildObjects": [{"ObjectIdentifier": layout.ou(i), "ObjectType": "OU"} for i in range(layout.ous)],
        "ObjectIdentifier": DOMAIN_SID, "Aces": _aces(layout, 0), "IsDeleted": False, "IsACLProtected": False,
        "ContainedBy": None,
    }  # fmt: skip


# In the order SharpHound writes them; every file is its own ingest task.
FILES = {"domains": domains, "ous": ous, "gpos": gpos, "containers": containers, "groups": groups,
         "users": users, "computers": computers}  # fmt: skip


def write_new_computers(layout: Layout, count: int, directory: Path) -> list[Path]:
    """Two files of `count` computers each that a stored collection of `layout` does not hold: their sessions, local
    groups, ACEs and OUs name the stored users and groups, so their edges go into the stored indexes at the places a
    collection of that size would put them (`--into`: what a large file costs per edge at that size). The first file
    fills the buffer cache as an ingest running for a while would have; the second shows that state's cost."""
    shifted = dataclasses.replace(layout, computer_rid_offset=10 * (layout.users + layout.computers + layout.groups))
    records = computers(shifted)
    paths = [directory / f"2026010100000{part}_computers.json" for part in range(2)]
    for path in paths:
        _write_file(path, "computers", itertools.islice(records, count))
    return paths


def write_collection(layout: Layout, directory: Path) -> list[Path]:
    """Stream every file to disk one record at a time, meta last as SharpHound does."""
    paths = []
    for kind, records in FILES.items():
        path = directory / f"20260101000000_{kind}.json"
        _write_file(path, kind, records(layout))
        paths.append(path)
    return paths


def _write_file(path: Path, kind: str, records: Iterator[dict[str, Any]]) -> None:
    count = 0
    with path.open("wb") as out:
        out.write(b'{"data":[')
        for record in records:
            if count:
                out.write(b",")
            out.write(orjson.dumps(record))
            count += 1
        meta = {"methods": 521215, "type": kind, "count": count, "version": 6}
        out.write(b'],"meta":' + orjson.dumps(meta) + b"}")


def _opener(path: Path) -> Any:
    def open_file() -> BinaryIO:
        return path.open("rb")

    return open_file


def ingest(database: Database, paths: list[Path], batch_size: int, sequential: bool,
           data_dir: Path | None = None) -> WriteStats:
    """Ingest each file as an ingest task; per file, the edges/s, the backend's CPU and (with `data_dir`) the whole
    server's (the WAL writer, the I/O workers, the checkpointer and the background writer work for the backend)."""
    total = WriteStats()
    # One upload job: its files share one `lastseen` (the job's start), so a record or edge that a later file
    # restates unchanged is left alone, as the datapipe leaves it.
    seen_at = datetime.now(UTC)
    for path in paths:
        document = IngestFile(name=path.name, parent_name=None, open=_opener(path))
        started = time.perf_counter()
        server_before = postgres_cpu(data_dir) if data_dir else 0.0
        with database.connect_raw() as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            backend = int(row[0]) if row else 0
            store = GraphStore(conn)
            warnings: list[str] = []
            batches = read_file(document, batch_size=batch_size, warnings=warnings)
            written = WriteStats()
            if sequential:
                for batch in batches:
                    written += store.write(batch, seen_at=seen_at)
            else:
                written = store.write_all(batches, seen_at=seen_at)
            conn.commit()
            backend_cpu = cpu(backend, reaped=False)
            server_cpu = postgres_cpu(data_dir) - server_before if data_dir else 0.0
        total += written
        wall = time.perf_counter() - started
        edges = max(written.edges, 1)
        server = f", all of PostgreSQL {server_cpu:.1f} s ({server_cpu * 1e6 / edges:.1f} us/edge)" if data_dir else ""
        print(f"  {path.stem}: {written.nodes:,} nodes, {written.edges:,} edges in {wall:.1f} s "
              f"({written.edges / wall:,.0f} edges/s), backend CPU {backend_cpu:.1f} s "
              f"({backend_cpu * 1e6 / edges:.1f} us/edge){server}; load {os.getloadavg()[0]:.2f}")  # fmt: skip
        for warning in warnings:
            print(f"  warning ({path.name}): {warning}", file=sys.stderr)
    return total


def read_only(paths: list[Path], batch_size: int) -> None:
    """CPU seconds of the reading process's work alone, per file, as it does it: `read_cuts` (checking, parsing and
    converting, edges by column), `prepare_cut` (merging and encoding the batches for COPY) and pickling each batch
    for the hand-over to the writer, with no PostgreSQL to overlap. Run with the interpreter settings that process
    uses."""
    lastseen = rfc3339(datetime.now(UTC))
    totals = [0.0, 0.0, 0.0]
    with bulk_tuning():
        for path in paths:
            document = IngestFile(name=path.name, parent_name=None, open=_opener(path))
            records, spent = 0, [0.0, 0.0, 0.0]
            cuts = read_cuts(document, batch_size=batch_size)
            while True:
                started = time.process_time()
                cut = next(cuts, None)
                read = time.process_time()
                spent[0] += read - started
                if cut is None:
                    break
                records += len(cut)
                prepared = prepare_cut(cut, lastseen)
                ready = time.process_time()
                pickle.dumps(("batch", prepared), protocol=pickle.HIGHEST_PROTOCOL)
                spent[1] += ready - read
                spent[2] += time.process_time() - ready
            totals = [total + part for total, part in zip(totals, spent, strict=True)]
            print(f"  {path.name:34} {records:>9,} records  read {spent[0]:6.2f} s  prepare {spent[1]:6.2f} s  "
                  f"pickle {spent[2]:5.2f} s CPU")
    print(f"reading: {sum(totals):.2f} s CPU in all (read_cuts {totals[0]:.2f} s, prepare_cut {totals[1]:.2f} s, "
          f"pickle {totals[2]:.2f} s); load average {os.getloadavg()[0]:.2f}")


_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3, the state, first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(parent: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(entry.name)[1]) == parent:
                    pids.append(int(entry.name))
            except (OSError, IndexError):
                continue  # gone meanwhile
    return pids


def cpu(pid: int, reaped: bool) -> float:
    """CPU seconds of a process, with those of the children it has waited for when `reaped`."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15 if reaped else 13]) / _TICKS


def postgres_cpu(data_dir: Path) -> float:
    """CPU seconds so far of the embedded PostgreSQL under `data_dir`: the server and its backends, ended ones
    included (the server reaps them)."""
    return sum(postgres_cpu_by_role(data_dir).values())


def postgres_cpu_by_role(data_dir: Path) -> dict[str, float]:
    """`postgres_cpu` by process: "server" (the postmaster and the backends that have ended), "backend" (those
    still connected), and each auxiliary process by its title ("walwriter", "checkpointer", ...)."""
    postmaster = int(next(data_dir.rglob("postmaster.pid")).read_text().split()[0])
    roles = {"server": cpu(postmaster, reaped=True)}
    for pid in children(postmaster):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split()
        except OSError:
            continue
        role = title[1] if len(title) > 1 and title[1] in _AUXILIARY else "backend"
        roles[role] = roles.get(role, 0.0) + cpu(pid, reaped=False)
    return roles


_AUXILIARY = ("walwriter", "checkpointer", "background", "autovacuum", "io", "logical")


def _ram_gib() -> float:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2
    return 0.0


# Rows the ingest inserted and updated in the graph tables (a placeholder node that its record later fills in is an
# update; one that is not HOT adds an entry to every index of the table).
TUPLE_COUNTS = """
SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
WHERE relname IN ('node', 'edge') ORDER BY relname DESC
"""

# Since the server started (`_tune` restarts it): the migrations' share is a few MB.
WAL_COUNTS = """
SELECT wal_bytes, wal_fpi, num_requested, num_timed FROM pg_stat_wal, pg_stat_checkpointer
"""


# `--statements`: where the server's time went, by statement (the start of its text, on one line).
TOP_STATEMENTS = """
SELECT total_exec_time / 1000, calls, rows, shared_blks_hit, shared_blks_read, shared_blks_written, wal_bytes,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 90)
FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12
"""


# `--statements`: the graph tables' indexes, their size against the buffer cache and their blocks found in it (hit) or
# read from the kernel (read), and the client backends' I/O by context ("bulkwrite": COPY's 16 MB ring of buffers,
# whose dirty pages the backend itself writes out, flushing the WAL up to each).
INDEX_IO = """
SELECT s.indexrelname, pg_relation_size(s.indexrelid), s.idx_blks_hit, s.idx_blks_read
FROM pg_statio_user_indexes s WHERE s.relname IN ('node', 'edge') ORDER BY s.relname DESC, s.indexrelname
"""
BACKEND_IO = """
SELECT object, context, coalesce(reads, 0), coalesce(writes, 0), coalesce(extends, 0), coalesce(hits, 0),
       coalesce(evictions, 0), coalesce(reuses, 0), coalesce(fsyncs, 0)
FROM pg_stat_io WHERE backend_type = 'client backend' AND object = 'relation'
  AND coalesce(reads, 0) + coalesce(writes, 0) + coalesce(extends, 0) > 0
ORDER BY object, context
"""
WAL_SYNCS = "SELECT coalesce(sum(writes), 0), coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal'"
# `--index-after`: an index's definition, to drop it before the ingest and build it again after.
INDEX_DEFINITION = "SELECT pg_get_indexdef(%s::regclass)"


def _tune(database: Database, settings: dict[str, str]) -> None:
    """Apply server settings over those the service's start applies (`EMBEDDED_SETTINGS`), with a restart, so
    `--set max_wal_size=1GB --set shared_buffers=160MB` measures the server's own defaults."""
    _alter_system(database, settings)
    restart_embedded(database.embedded)


def _alter_system(database: Database, settings: dict[str, str]) -> None:
    with database.connect_raw(autocommit=True) as conn:
        for name, value in settings.items():
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")  # given by whoever runs this script
        conn.execute("SELECT pg_reload_conf()")


def _definition(conn: Any, name: str) -> tuple[str, str]:
    row = conn.execute(INDEX_DEFINITION, (name,)).fetchone()
    return name, row[0]


def _build(database: Database, data_dir: Path, deferred: list[tuple[str, str]]) -> list[tuple[str, float, float]]:
    """Build each dropped index again (as CREATE INDEX after a bulk load would): name, wall seconds, PostgreSQL CPU."""
    built = []
    with database.connect_raw(autocommit=True) as conn:
        for name, definition in deferred:
            cpu_before, started = postgres_cpu(data_dir), time.perf_counter()
            conn.execute(definition)
            built.append((name, time.perf_counter() - started, postgres_cpu(data_dir) - cpu_before))
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=20_000, help="records per batch (read_file)")
    parser.add_argument("--tuned", action="store_true", help="apply TUNED_SETTINGS to the server first")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a server setting to apply first (repeatable; with --tuned, after TUNED_SETTINGS)")
    parser.add_argument("--keep", type=Path, help="write the collection here and keep it")
    parser.add_argument("--sequential", action="store_true", help="GraphStore.write per batch, no read-ahead")
    parser.add_argument("--read-only", action="store_true",
                        help="CPU seconds of reading and preparing per file, no database")
    parser.add_argument("--statements", action="store_true",
                        help="load pg_stat_statements and print the statements that took the most time")
    parser.add_argument("--index-after", action="append", default=[], metavar="INDEX",
                        help="drop this index of node or edge before the ingest and build it after, timed "
                             "(repeatable): what building an index once costs against keeping it row by row")
    parser.add_argument("--bulk", action="store_true",
                        help="bulk mode, as the datapipe runs a large job: graph.store.bulk's indexes dropped before "
                             "the files and built after them (counted in the wall time and CPU)")
    parser.add_argument("--into", type=Path, metavar="DATA_DIR",
                        help="ingest into this service data directory (a copy of a kept database: it is changed) "
                             "instead of a fresh one")
    parser.add_argument("--new-computers", type=int, metavar="N",
                        help="write only N computers that a stored collection of --objects objects does not hold, "
                             "naming its users and groups (with --into: a large file's cost at that size)")
    parser.add_argument("--order", choices=("reading", "sharphound"), default="reading",
                        help="the files in the datapipe's reading order (as an upload is read), or as SharpHound "
                             "writes them")
    args = parser.parse_args()

    layout = Layout.of(args.objects)
    with tempfile.TemporaryDirectory(prefix="hg-bench-", dir="/tmp") as scratch:
        files_dir = args.keep or Path(scratch) / "collection"
        files_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        if args.new_computers:
            paths = write_new_computers(layout, args.new_computers, files_dir)
        else:
            paths = write_collection(layout, files_dir)
        if args.order == "reading":
            paths.sort(key=lambda path: SHARPHOUND_READING_ORDER.index(path.stem.rsplit("_", 1)[1]))
        size_mb = sum(path.stat().st_size for path in paths) / 1e6
        print(f"collection: {args.objects:,} objects, {len(paths)} files, {size_mb:,.0f} MB, "
              f"written in {time.perf_counter() - started:.1f} s")  # fmt: skip
        if args.read_only:
            print(f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}")
            read_only(paths, args.batch_size)
            return

        data_dir = args.into or Path(scratch) / "db"
        database = Database.open(Settings(data_dir=data_dir))
        try:
            database.migrate()
            server_settings = dict(TUNED_SETTINGS) if args.tuned else {}
            server_settings.update(item.split("=", 1) for item in args.set)
            if args.statements:
                server_settings["shared_preload_libraries"] = "pg_stat_statements"
            if server_settings:
                _tune(database, server_settings)
            with database.connect_raw() as conn:
                row = conn.execute("SHOW server_version").fetchone()
                settings = conn.execute(
                    "SELECT string_agg(name || '=' || current_setting(name), ' ') FROM pg_settings "
                    "WHERE name = ANY(%s)", ([*TUNED_SETTINGS, "wal_init_zero", *server_settings],)
                ).fetchone()  # fmt: skip
                if args.statements:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                    conn.execute("SELECT pg_stat_statements_reset()")
                    conn.execute("SELECT pg_stat_reset()")  # the indexes' blocks (a kept database's are old)
                    conn.execute("SELECT pg_stat_reset_shared('io')")
                    conn.execute("SELECT pg_stat_reset_shared('wal')")
                    conn.commit()
                deferred = [_definition(conn, name) for name in args.index_after]
                for name in args.index_after:
                    conn.execute(f"DROP INDEX {name}")  # given by whoever runs this script
                conn.commit()
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            load_before = os.getloadavg()[0]
            cpu_before = time.process_time(), postgres_cpu_by_role(data_dir)
            started = time.perf_counter()
            if args.bulk:
                with database.connect_raw(autocommit=True) as conn:
                    bulk.defer(conn)
            stats = ingest(database, paths, args.batch_size, args.sequential, data_dir)
            if args.bulk:
                rebuild_started = time.perf_counter()
                with database.connect_raw(autocommit=True) as conn:
                    rebuilt = bulk.rebuild(conn)
                print(f"  bulk mode: built {', '.join(rebuilt)} in {time.perf_counter() - rebuild_started:.1f} s")
            wall = time.perf_counter() - started
            cpu_python = time.process_time() - cpu_before[0]
            roles = postgres_cpu_by_role(data_dir)
            cpu_roles = {role: spent - cpu_before[1].get(role, 0.0) for role, spent in roles.items()}
            cpu_postgres = sum(cpu_roles.values())
            load_after = os.getloadavg()[0]
            builds = _build(database, data_dir, deferred)
            with database.connect_raw() as conn:
                tuples = conn.execute(TUPLE_COUNTS).fetchall()
                wal = conn.execute(WAL_COUNTS).fetchone()
                statements = conn.execute(TOP_STATEMENTS).fetchall() if args.statements else []
                index_io = conn.execute(INDEX_IO).fetchall() if args.statements else []
                backend_io = conn.execute(BACKEND_IO).fetchall() if args.statements else []
                wal_syncs = conn.execute(WAL_SYNCS).fetchone() if args.statements else None
        finally:
            database.close()

    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {os.cpu_count()} cores, {_ram_gib():.1f} GiB RAM, {platform.platform()}, "
          f"Python {platform.python_version()}, PostgreSQL {row[0] if row else '?'} (embedded)")  # fmt: skip
    print(f"server settings: {settings[0] if settings else '?'}")
    mode = "write per batch" if args.sequential else "write_all (read-ahead thread)"
    print(f"batch size: {args.batch_size:,} records, {mode}; load average before: {load_before:.2f}")
    print(f"ingested: {stats.nodes:,} node records, {stats.edges:,} edges, {stats.placeholders:,} placeholders")
    print("files: " + ", ".join(path.stem.rsplit("_", 1)[1] for path in paths))
    print("rows: " + "; ".join(f"{table} {inserted:,} inserted, {updated:,} updated ({hot:,} HOT)"
                               for table, inserted, updated, hot in tuples))
    if wal is not None:
        print(f"WAL: {float(wal[0]) / 1e9:.2f} GB, {wal[1]:,} full-page images; checkpoints: {wal[2]} requested, "
              f"{wal[3]} timed")
    print(f"wall time: {wall:.1f} s (load average after: {load_after:.2f})")
    for name, seconds, build_cpu in builds:
        print(f"index built after the ingest: {name} in {seconds:.1f} s, postgres CPU {build_cpu:.1f} s")
    print(f"CPU: {cpu_python + cpu_postgres:.1f} s (this process {cpu_python:.1f} s, postgres {cpu_postgres:.1f} s: "
          + ", ".join(f"{role} {spent:.1f}" for role, spent in sorted(cpu_roles.items(), key=lambda item: -item[1]))
          + ")")
    print(f"objects/s: {args.objects / wall:,.0f}")
    print(f"edges/s: {stats.edges / wall:,.0f}")
    print(f"peak RSS: {peak_rss:,.0f} MB (before ingest {rss_before:,.0f} MB)")
    if statements:
        print("statements by time (s, calls, rows, shared blocks hit/read/written, WAL MB):")
        for seconds, calls, rows, hit, read, written_blocks, wal_bytes, text in statements:
            print(f"  {seconds:7.2f} {calls:6,} {rows:10,} {hit:12,} {read:8,} {written_blocks:8,} "
                  f"{float(wal_bytes) / 1e6:8.0f}  {text}")
    if index_io:
        print("indexes (MB, blocks hit, blocks read):")
        for name, size, hit, read in index_io:
            print(f"  {name:34} {size / 1e6:8.1f} {hit:12,} {read:10,}")
    if backend_io:
        print("client backends' I/O on relations (context: reads, writes, extends, hits, evictions, reuses, fsyncs):")
        for _, context, *counts in backend_io:
            print(f"  {context:10} " + " ".join(f"{int(count):10,}" for count in counts))
    if wal_syncs is not None:
        print(f"WAL writes {wal_syncs[0]:,}, syncs {wal_syncs[1]:,}")


if __name__ == "__main__":
    main()
