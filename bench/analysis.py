"""Full analysis of a synthetic 100k-object AD collection: the time of each rule and the total.

    .venv/bin/python bench/analysis.py [--objects 100000] [--runs 2] [--serial]

Generates a SharpHound-like domain (users 55 %, computers 30 %, groups 12 %, OUs, GPOs, one enterprise
CA with templates), writes it through the graph store (the path ingest takes) into a throw-away
embedded PostgreSQL, then runs `run_analysis` `--runs` times (nothing is written between runs, so the second
run measures a re-analysis of an unchanged graph: the rules are skipped, the closing steps run).

Besides wall-clock seconds, each run prints the CPU seconds of this process and of its database backend (from
/proc), which a busy machine inflates less. PostgreSQL's parallel workers are other processes: with `--serial`
the run's statements use none, so the backend's figure is all the database work.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from synthetic import machine, throwaway_database  # bench/synthetic.py

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, NodeRecord
from houndgraph.graph.store import GraphStore

SID = "S-1-5-21-1000-2000-3000"
DOMAIN = "BENCH.LOCAL"
NOW = 1_700_000_000
BATCH = 20_000
ACL_RIGHTS = (ADEdge.GenericAll, ADEdge.GenericWrite, ADEdge.WriteDacl, ADEdge.WriteOwnerRaw, ADEdge.OwnsRaw,
              ADEdge.ForceChangePassword, ADEdge.AddMember, ADEdge.AllExtendedRights)


class Generator:
    """Records of a synthetic collection, in the shapes the SharpHound readers produce."""

    def __init__(self, objects: int, seed: int = 42) -> None:
        self.rng = random.Random(seed)
        self.users = [f"{SID}-{10_000 + i}" for i in range(int(objects * 0.55))]
        self.computers = [f"{SID}-{500_000 + i}" for i in range(int(objects * 0.30))]
        self.groups = [f"{SID}-{900_000 + i}" for i in range(int(objects * 0.12))]
        self.ous = [f"OU-{i:05d}" for i in range(max(objects // 40, 10))]
        self.gpos = [f"GPO-{i:05d}" for i in range(max(objects // 200, 5))]
        self.templates = [f"TEMPLATE-{i:03d}" for i in range(30)]
        self.nodes: list[NodeRecord] = []
        self.edges: list[EdgeRecord] = []

    def node(self, objectid: str, kind: str, **properties: Any) -> None:
        self.nodes.append(NodeRecord(objectid, (kind, ADNode.Base), {"domainsid": SID, **properties}))

    def edge(self, start: str, kind: str, end: str, **properties: Any) -> None:
        self.edges.append(EdgeRecord(EdgeEnd(start), EdgeEnd(end), kind, properties))

    def records(self) -> Iterator[Batch]:
        self._domain()
        self._principals()
        self._computers()
        self._acls()
        self._pki()
        nodes, edges = self.nodes, self.edges
        for start in range(0, len(nodes), BATCH):
            yield Batch(nodes=nodes[start:start + BATCH])
        for start in range(0, len(edges), BATCH):
            yield Batch(edges=edges[start:start + BATCH])

    def _domain(self) -> None:
        self.node(SID, ADNode.Domain, name=DOMAIN, collected=True, netbios="BENCH", functionallevel="2016")
        for rid, name in (("-512", "DOMAIN ADMINS"), ("-519", "ENTERPRISE ADMINS"), ("-513", "DOMAIN USERS"),
                          ("-515", "DOMAIN COMPUTERS"), ("-516", "DOMAIN CONTROLLERS")):
            self.node(SID + rid, ADNode.Group, name=f"{name}@{DOMAIN}")
        self.node(f"{DOMAIN}-S-1-5-32-544", ADNode.Group, name=f"ADMINISTRATORS@{DOMAIN}")
        self.edge(SID + "-512", ADEdge.MemberOf, f"{DOMAIN}-S-1-5-32-544")
        self.edge(f"{DOMAIN}-S-1-5-32-544", ADEdge.GetChanges, SID)
        self.edge(f"{DOMAIN}-S-1-5-32-544", ADEdge.GetChangesAll, SID)
        self.node(f"CN=ADMINSDHOLDER-{SID}", ADNode.Container, distinguishedname="CN=ADMINSDHOLDER,CN=SYSTEM,DC=B")
        for index, ou in enumerate(self.ous):
            parent = SID if index < 10 else self.ous[self.rng.randrange(index)]
            self.node(ou, ADNode.OU, name=f"OU{index}@{DOMAIN}", blocksinheritance=index % 17 == 0)
            self.edge(parent, ADEdge.Contains, ou)
        for index, gpo in enumerate(self.gpos):
            self.node(gpo, ADNode.GPO, name=f"GPO{index}@{DOMAIN}")
            self.edge(gpo, ADEdge.GPLink, self.rng.choice(self.ous), enforced=index % 5 == 0)
        self.edge(self.gpos[0], ADEdge.GPLink, SID, enforced=False)

    def _principals(self) -> None:
        rng = self.rng
        for index, user in enumerate(self.users):
            self.node(user, ADNode.User, name=f"USER{index}@{DOMAIN}", enabled=index % 20 != 0,
                      lastlogontimestamp=NOW - rng.randrange(60) * 86400, adminsdholderprotected=index < 20)
            self.edge(user, ADEdge.MemberOf, SID + "-513", isprimarygroup=True)
            for group in rng.sample(self.groups, 3):
                self.edge(user, ADEdge.MemberOf, group)
            self.edge(rng.choice(self.ous), ADEdge.Contains, user)
        for index, group in enumerate(self.groups):
            self.node(group, ADNode.Group, name=f"GROUP{index}@{DOMAIN}")
            if index:
                self.edge(group, ADEdge.MemberOf, self.groups[rng.randrange(index)])
        for user in self.users[:10]:
            self.edge(user, ADEdge.MemberOf, SID + "-512")

    def _computers(self) -> None:
        rng = self.rng
        for index, computer in enumerate(self.computers):
            self.node(computer, ADNode.Computer, name=f"PC{index}.{DOMAIN}", enabled=True, haslaps=index % 3 == 0,
                      operatingsystem="Windows Server 2022" if index % 4 == 0 else "Windows 11 Enterprise",
                      lastlogontimestamp=NOW - rng.randrange(30) * 86400, hasura=True,
                      smbsigning=index % 7 != 0, restrictoutboundntlm=False, webclientrunning=index % 11 == 0)
            self.edge(computer, ADEdge.MemberOf, SID + "-515", isprimarygroup=True)
            self.edge(rng.choice(self.ous), ADEdge.Contains, computer)
            self.edge(computer, ADEdge.HasSession, rng.choice(self.users))
            admins, rdp = f"{computer}-544", f"{computer}-555"
            for group, name in ((admins, "ADMINISTRATORS"), (rdp, "REMOTE DESKTOP USERS")):
                self.nodes.append(NodeRecord(group, (ADNode.LocalGroup, ADNode.Base), {"name": f"{name}@PC{index}"}))
                self.edge(group, ADEdge.LocalToComputer, computer)
            self.edge(SID + "-512", ADEdge.MemberOfLocalGroup, admins)
            self.edge(rng.choice(self.groups), ADEdge.MemberOfLocalGroup, admins)
            self.edge(rng.choice(self.groups), ADEdge.MemberOfLocalGroup, rdp)
            self.edge(admins, ADEdge.RemoteInteractiveLogonRight, computer)
            self.edge(rdp, ADEdge.RemoteInteractiveLogonRight, computer)
            if index % 10 == 0:
                self.edge(rng.choice(self.computers), ADEdge.MemberOfLocalGroup, admins)
        self.node(self.computers[0], ADNode.Computer, isdc=True, ldapavailable=True, ldapsigning=False)
        self.edge(self.computers[0], ADEdge.DCFor, SID)

    def _acls(self) -> None:
        rng = self.rng
        principals = self.users + self.groups
        targets = self.users + self.groups + self.computers
        for _ in range(len(targets) * 2):
            self.edge(rng.choice(principals), rng.choice(ACL_RIGHTS), rng.choice(targets), isacl=True)

    def _pki(self) -> None:
        ca, root, store = "ECA-1", "ROOTCA-1", "NTAUTH-1"
        self.node(ca, ADNode.EnterpriseCA, name=f"CA@{DOMAIN}", certthumbprint="AA", certchain=["AA"],
                  isuserspecifiessanenabled=True, hasvulnerableendpoint=True)
        self.node(root, ADNode.RootCA, name=f"ROOT@{DOMAIN}", certthumbprint="AA", certchain=["AA"])
        self.node(store, ADNode.NTAuthStore, name=f"NTAUTH@{DOMAIN}", certthumbprints=["AA"])
        self.edge(root, ADEdge.RootCAFor, SID)
        self.edge(store, ADEdge.NTAuthStoreFor, SID)
        self.edge(self.computers[1], ADEdge.HostsCAService, ca)
        self.edge(SID + "-513", ADEdge.Enroll, ca)
        for index, template in enumerate(self.templates):
            self.node(template, ADNode.CertTemplate, name=f"T{index}@{DOMAIN}", schemaversion=1 + index % 2,
                      authorizedsignatures=0, requiresmanagerapproval=index % 3 == 0, authenticationenabled=True,
                      enrolleesuppliessubject=index % 4 == 0, nosecurityextension=index % 5 == 0,
                      subjectaltrequireupn=True, effectiveekus=[])
            self.edge(template, ADEdge.PublishedTo, ca)
            self.edge(self.rng.choice(self.groups), ADEdge.Enroll, template)


def load(db: Database, objects: int) -> tuple[int, int, float]:
    started = time.perf_counter()
    generator = Generator(objects)
    with db.connect_raw() as conn:
        store = GraphStore(conn)
        for batch in generator.records():
            store.write(batch, seen_at=datetime.now(UTC))
        conn.commit()
        nodes = conn.execute("SELECT count(*) FROM node").fetchone()[0]  # type: ignore[index]
        edges = conn.execute("SELECT count(*) FROM edge").fetchone()[0]  # type: ignore[index]
        conn.execute("ANALYZE")
    return nodes, edges, time.perf_counter() - started


@contextmanager
def loaded_collection(description: str, *,
                      serial_option: bool = False) -> Iterator[tuple[argparse.Namespace, Database]]:
    """What the analysis-side benchmarks start with: `--objects` and `--runs`, the machine printed, and a
    throwaway database holding the synthetic collection."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    if serial_option:
        parser.add_argument("--serial", action="store_true", help="no parallel workers: all database CPU counted")
    args = parser.parse_args()
    print(f"{machine()}, load average {os.getloadavg()[0]:.1f}")
    with throwaway_database("hgb-") as db:
        nodes, edges, seconds = load(db, args.objects)
        print(f"collection: {args.objects} objects -> {nodes} nodes, {edges} edges, loaded in {seconds:.1f} s")
        yield args, db


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process on this machine (the embedded database is local)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    with loaded_collection(__doc__.splitlines()[0], serial_option=True) as (args, db):
        for run in range(1, args.runs + 1):
            with db.connect_raw() as conn:
                backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
                if args.serial:
                    conn.execute("SET max_parallel_workers_per_gather = 0")
                conn.commit()
                python_began, backend_began = time.process_time(), process_cpu_seconds(backend)
                report = run_analysis(conn)
                python_cpu = time.process_time() - python_began
                backend_cpu = process_cpu_seconds(backend) - backend_began
                conn.commit()
            print(f"\nrun {run}: {report.seconds:.1f} s in total, load average {os.getloadavg()[0]:.1f}; CPU seconds: "
                  f"Python {python_cpu:.1f}, database backend {backend_cpu:.1f}"
                  f"{'' if args.serial else ' (parallel workers not counted)'}")
            if report.unchanged_since is not None:
                print(f"rules skipped: no graph write since the analysis of {report.unchanged_since:%H:%M:%S}")
            else:
                print(f"{'rule':22} {'seconds':>8} {'edges':>9} {'new':>9} {'gone':>7}")
            for rule in report.rules:
                print(f"{rule.name:22} {rule.seconds:8.2f} {rule.total:9} {rule.added:9} {rule.removed:7}")
            for step, seconds in report.steps.items():
                print(f"{step:22} {seconds:8.2f}")


if __name__ == "__main__":
    main()
