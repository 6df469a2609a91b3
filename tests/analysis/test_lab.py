"""The SharpHound v6 ADCS lab (ESC1.LOCAL), ingested and analysed: what an analyst of that lab expects.

Facts read from the files (see each test), not from the code under test:
* CA ESC1-ESC1-DC-CA is hosted by ESC1-DC (enabled), its certificate is the root (RootCA and NTAuth
  store carry its thumbprint); CA enrollers (CASecurity): JONES, GROUP 3 (SMITH, GROUP 4), MILLER, GARCIA.
* Published templates with enrollee-supplied subject, no approval, authentication, schema 1 or no
  signature: ESC1 (enrollers DA, EA, JONES, GROUP 1 = {GARCIA, GROUP 2}, SMITH, DAVIS), SUBCA (DA, EA)
  and DOMAINCONTROLLERAUTHENTICATION (EDC, ERODC, DA, DC, EA, JONES, GROUP 1, SMITH). Holding both
  enrollments: JONES (directly), SMITH (template directly, CA via GROUP 3), GARCIA (template via
  GROUP 1, CA directly).
* Domain ACEs: GetChanges to ENTERPRISE DOMAIN CONTROLLERS, ADMINISTRATORS, ERODC; GetChangesAll to
  ADMINISTRATORS and DOMAIN CONTROLLERS. ESC1-DC is in EDC (Members) and DOMAIN CONTROLLERS (primary
  group), so it holds both; ADMINISTRATORS holds both directly.
* ESC1-DC's local Administrators (-544): RESEARCHER, ENTERPRISE ADMINS, DOMAIN ADMINS.
"""

from __future__ import annotations

import json
from collections import defaultdict

from houndgraph.analysis import run_analysis
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADEdge
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file
from tests.analysis.graphs import SEEN, Graph
from tests.conftest import DATA

LAB = DATA / "sharphound" / "v6-adcs-lab"
SID = "S-1-5-21-909015691-3030120388-2582151266"
DOMAIN = "ESC1.LOCAL"


def ingest_lab(graph: Graph) -> None:
    store = GraphStore(graph.conn)
    for file in expand_upload(LAB / "adcs.zip", max_unzipped_bytes=1 << 30, max_ratio=1000):
        for batch in read_file(file):
            store.write(batch, seen_at=SEEN)


def test_lab_derived_edges(graph: Graph) -> None:
    ingest_lab(graph)
    run_analysis(graph.conn)
    assert graph.derived(ADEdge.ADCSESC1) == {
        ("JONES@ESC1.LOCAL", DOMAIN), ("SMITH@ESC1.LOCAL", DOMAIN), ("GARCIA@ESC1.LOCAL", DOMAIN)}
    assert graph.derived(ADEdge.GoldenCert) == {("ESC1-DC.ESC1.LOCAL", DOMAIN)}
    assert graph.derived(ADEdge.DCSync) == {("ADMINISTRATORS@ESC1.LOCAL", DOMAIN), ("ESC1-DC.ESC1.LOCAL", DOMAIN)}
    assert graph.derived(ADEdge.AdminTo) == {
        ("RESEARCHER@ESC1.LOCAL", "ESC1-DC.ESC1.LOCAL"), ("ENTERPRISE ADMINS@ESC1.LOCAL", "ESC1-DC.ESC1.LOCAL"),
        ("DOMAIN ADMINS@ESC1.LOCAL", "ESC1-DC.ESC1.LOCAL")}
    ca, root, aia, store = (_object_id(name) for name in ("enterprisecas", "rootcas", "aiacas", "ntauthstores"))
    assert graph.derived_ids(ADEdge.TrustedForNTAuth) == {(ca, store)}
    # The CA's certificate is the root certificate, and the AIA object carries the same one.
    assert graph.derived_ids(ADEdge.EnterpriseCAFor) == {(ca, root), (ca, aia)}
    assert graph.derived_ids(ADEdge.IssuedSignedBy) == set()  # a one-certificate chain has no issuer
    # Nothing derives from a rule whose inputs the lab lacks: no LAPS computer, no empty RDP group member.
    assert graph.derived(ADEdge.SyncLAPSPassword) == set()
    assert graph.derived(ADEdge.CanRDP) == set()


def _object_id(file_name: str) -> str:
    (record,) = json.loads((LAB / f"{file_name}.json").read_text())["data"]
    return record["ObjectIdentifier"].upper()


def _expected_counts() -> dict[str, int]:
    """Distinct object ids per file whose `domainsid` is the lab domain's SID."""
    seen: dict[str, set[str]] = defaultdict(set)
    for column, file_name in (("users", "users"), ("groups", "groups"), ("computers", "computers"),
                              ("ous", "ous"), ("containers", "containers"), ("gpos", "gpos"),
                              ("aiacas", "aiacas"), ("rootcas", "rootcas"), ("enterprisecas", "enterprisecas"),
                              ("ntauthstores", "ntauthstores"), ("certtemplates", "certtemplates"),
                              ("issuancepolicies", "issuancepolicies")):
        for record in json.loads((LAB / f"{file_name}.json").read_text())["data"]:
            if (record.get("Properties") or {}).get("domainsid") == SID:
                seen[column].add(record["ObjectIdentifier"].upper())
    return {column: len(ids) for column, ids in seen.items()}


def test_lab_data_quality_row_matches_the_files(graph: Graph) -> None:
    ingest_lab(graph)
    report = run_analysis(graph.conn)
    cursor = graph.conn.execute("SELECT * FROM ad_data_quality_stats WHERE run_id = %s",
                                (report.data_quality_run_id,))
    names = [column.name for column in cursor.description or []]
    (row,) = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    expected = _expected_counts()
    assert row["domain_sid"] == SID
    assert {column: row[column] for column in expected} == expected
    # One of the two computers (the DC) has a derived local-group edge; both are enabled Windows
    # machines that logged on within 14 days of each other.
    assert row["local_group_completeness"] == 0.5


def test_lab_tier_zero_and_meta_node(graph: Graph) -> None:
    ingest_lab(graph)
    run_analysis(graph.conn)
    tagged = {row[0] for row in graph.conn.execute(
        "SELECT n.properties->>'name' FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = %s",
        (TIER_ZERO_TAG,))}
    # Well-known groups and their members (RESEARCHER is the -500 account and in DA / EA), the DC (in
    # DOMAIN CONTROLLERS by primary group and in ENTERPRISE DOMAIN CONTROLLERS), the domain itself.
    assert {"DOMAIN ADMINS@ESC1.LOCAL", "ENTERPRISE ADMINS@ESC1.LOCAL", "ADMINISTRATORS@ESC1.LOCAL",
            "RESEARCHER@ESC1.LOCAL", "ESC1-DC.ESC1.LOCAL", DOMAIN} <= tagged
    assert "JONES@ESC1.LOCAL" not in tagged and "ESC1-SERVER.ESC1.LOCAL" not in tagged
    (meta,) = graph.conn.execute(
        "SELECT n.properties FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = 'Meta'").fetchone()
    assert meta["objectid"] == f"META-{SID}" and meta["metafor"] == SID
    assert meta["tierzero"] == len(tagged) and meta["tierzerocomputers"] == 1
