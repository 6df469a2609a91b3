"""A re-analysis of a graph nobody wrote to since the last one keeps its derived edges instead of deriving
them again; any write after it (an ingested ACE or member, a plain SQL statement) makes the next run derive
everything again. What a user sees must not depend on which of the two happened."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from houndgraph.analysis import ALL_RULES, AnalysisReport, run_analysis
from houndgraph.analysis.ad import dcsync
from houndgraph.analysis.data_quality import SNAPSHOT_COLUMNS
from houndgraph.analysis.findings.store import HISTORY_COLUMNS
from houndgraph.db import Database
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADEdge, ADNode
from houndgraph.graph.projection.reading import current_version
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord
from houndgraph.graph.store import GraphStore
from tests.analysis.graphs import SEEN, Graph
from tests.analysis.test_lab import DOMAIN, SID, ingest_lab
from tests.conftest import scratch_database

DERIVED_KINDS = sorted({kind for rule in ALL_RULES for kind in rule.produces})
AD_AGGREGATE = SNAPSHOT_COLUMNS["ad_data_quality_aggregations"]


def derived_edges(graph: Graph) -> set[tuple[str, str, str]]:
    rows = graph.conn.execute(
        """SELECT s.properties->>'objectid', k.name, t.properties->>'objectid' FROM edge e
           JOIN kind k ON k.id = e.kind_id JOIN node s ON s.id = e.start_id JOIN node t ON t.id = e.end_id
           WHERE k.name = ANY(%s)""", (DERIVED_KINDS,))
    return set(rows.fetchall())


def tier_zero(graph: Graph) -> set[str]:
    rows = graph.conn.execute(
        "SELECT n.properties->>'name' FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = %s",
        (TIER_ZERO_TAG,))
    return {row[0] for row in rows}


def data_quality(graph: Graph, report: AnalysisReport) -> dict[str, Any]:
    cursor = graph.conn.execute(f"SELECT {', '.join(AD_AGGREGATE)} FROM ad_data_quality_aggregations "
                                "WHERE run_id = %s", (report.data_quality_run_id,))
    (row,) = cursor.fetchall()
    return dict(zip(AD_AGGREGATE, row, strict=True))


def object_id(graph: Graph, name: str) -> str:
    row = graph.conn.execute("SELECT properties->>'objectid' FROM node WHERE properties->>'name' = %s",
                             (name,)).fetchone()
    assert row is not None
    return str(row[0])


def ingest_edges(graph: Graph, *edges: tuple[str, str, str]) -> None:
    """Edges by node name, written the way an upload writes them."""
    records = [EdgeRecord(EdgeEnd(object_id(graph, start)), EdgeEnd(object_id(graph, end)), kind, {})
               for start, kind, end in edges]
    GraphStore(graph.conn).write(Batch(edges=records), seen_at=SEEN)


@pytest.fixture
def analysed_lab(graph: Graph) -> tuple[Graph, AnalysisReport]:
    ingest_lab(graph)
    return graph, run_analysis(graph.conn)


def test_a_second_analysis_of_an_unchanged_graph_keeps_edges_tier_zero_and_data_quality(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, first = analysed_lab
    edges, zero = derived_edges(graph), tier_zero(graph)
    assert first.unchanged_since is None and first.rules
    assert (f"{SID}-512", ADEdge.AdminTo, object_id(graph, "ESC1-DC.ESC1.LOCAL")) in edges

    second = run_analysis(graph.conn)
    assert second.unchanged_since == first.started_at and second.rules == []
    assert derived_edges(graph) == edges
    assert tier_zero(graph) == zero
    assert second.data_quality_run_id != first.data_quality_run_id
    assert data_quality(graph, second) == data_quality(graph, first)

    # The plain path: a statement that writes the graph (even one changing no row) makes the next run derive
    # everything again, with the same result.
    graph.conn.execute("UPDATE edge SET properties = properties WHERE false")
    third = run_analysis(graph.conn)
    assert third.unchanged_since is None and len(third.rules) == len(ALL_RULES)
    assert derived_edges(graph) == edges
    assert tier_zero(graph) == zero
    assert data_quality(graph, third) == data_quality(graph, first)


def test_an_ace_ingested_after_an_unchanged_reanalysis_is_derived(analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, _ = analysed_lab
    run_analysis(graph.conn)
    jones = object_id(graph, "JONES@ESC1.LOCAL")
    assert (jones, ADEdge.DCSync, SID) not in derived_edges(graph)

    ingest_edges(graph, ("JONES@ESC1.LOCAL", ADEdge.GetChanges, DOMAIN),
                 ("JONES@ESC1.LOCAL", ADEdge.GetChangesAll, DOMAIN))
    report = run_analysis(graph.conn)
    assert report.unchanged_since is None
    assert (jones, ADEdge.DCSync, SID) in derived_edges(graph)


def test_a_member_ingested_after_an_unchanged_reanalysis_joins_tier_zero(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, _ = analysed_lab
    run_analysis(graph.conn)
    assert "JONES@ESC1.LOCAL" not in tier_zero(graph)
    before = data_quality(graph, run_analysis(graph.conn))

    ingest_edges(graph, ("JONES@ESC1.LOCAL", ADEdge.MemberOf, "DOMAIN ADMINS@ESC1.LOCAL"))
    report = run_analysis(graph.conn)
    assert report.unchanged_since is None
    assert "JONES@ESC1.LOCAL" in tier_zero(graph)
    assert data_quality(graph, report)["relationships"] > before["relationships"]  # the membership, and what it derives


def test_deleted_data_quality_history_is_recomputed_by_an_unchanged_reanalysis(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, first = analysed_lab
    expected = data_quality(graph, first)
    for table in SNAPSHOT_COLUMNS:
        graph.conn.execute(f"DELETE FROM {table}")
    second = run_analysis(graph.conn)
    assert second.unchanged_since is not None
    assert data_quality(graph, second) == expected


def test_other_rules_or_options_derive_again(graph: Graph) -> None:
    graph.domain("D")
    graph.node("Alice", ADNode.User)
    graph.edges(ADEdge.GetChanges, [("Alice", "D")])
    graph.edges(ADEdge.GetChangesAll, [("Alice", "D")])
    assert graph.run(dcsync.RULE).unchanged_since is None
    assert graph.run(dcsync.RULE).unchanged_since is not None
    assert graph.run(dcsync.RULE, citrix=True).unchanged_since is None
    assert graph.run(dcsync.RULE, citrix=True).unchanged_since is not None
    assert graph.derived(ADEdge.DCSync) == {("Alice", "D")}


def test_a_graph_write_not_yet_committed_elsewhere_makes_this_run_and_the_next_derive_again(
        graph: Graph, empty_graph: Database) -> None:
    graph.domain("D")
    graph.node("Alice", ADNode.User)
    graph.edges(ADEdge.GetChanges, [("Alice", "D")])
    graph.edges(ADEdge.GetChangesAll, [("Alice", "D")])
    graph.run(dcsync.RULE)
    with empty_graph.connect_raw() as other:
        other.execute("UPDATE node SET properties = properties WHERE false")  # holds a graph write, uncommitted
        assert graph.run(dcsync.RULE).unchanged_since is None
        other.rollback()
    assert graph.run(dcsync.RULE).unchanged_since is None
    assert graph.run(dcsync.RULE).unchanged_since is not None
    assert graph.derived(ADEdge.DCSync) == {("Alice", "D")}


# What the findings API shows: every finding row (timestamps equal to the run's time read as "the run"), and the
# run's history (risk counts and posture) in the order written.
# An unresolved finding was last found by the last run that recorded findings, whether or not it wrote the row.
SHOWN_UPDATED_AT = ("CASE WHEN deleted_at IS NULL THEN greatest(updated_at, "
                    "(SELECT findings_found_at FROM analysis_state)) ELSE updated_at END")
FINDING_COLUMNS = ("id", "finding", "domain_sid", "principal_hash", "principal", "principal_kind", "principal_props",
                   "target", "target_kind", "target_props", "rel_kind", "rel_props", "edge_id", "impact_count",
                   "impact_percentage", "accepted_until", "created_at", SHOWN_UPDATED_AT, "deleted_at")


def findings_seen(graph: Graph, report: AnalysisReport) -> dict[str, list[tuple[Any, ...]]]:
    """A derived edge's `lastseen` (in `rel_props`) is the time of the run that derived it, which a skipped
    re-analysis does not move (the README's differences): it is left out."""
    def at_run(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple("the run" if value == report.started_at else
                     {key: item for key, item in value.items() if key != "lastseen"} if isinstance(value, dict) and
                     "firstseen" in value else value for value in row)

    seen = {"findings": [at_run(row) for row in graph.conn.execute(
        f"SELECT {', '.join(FINDING_COLUMNS)} FROM attack_path_findings ORDER BY id")]}
    for table, columns in HISTORY_COLUMNS.items():
        rows = graph.conn.execute(f"SELECT {', '.join(columns)}, created_at, updated_at, count(*) OVER (), "
                                  f"count(*) OVER (PARTITION BY run_id) FROM {table} WHERE created_at = %s "
                                  "ORDER BY id", (report.started_at,))
        seen[table] = [at_run(row) for row in rows]
    return seen


def force_full_run(graph: Graph, **options: Any) -> AnalysisReport:
    """A run that derives everything and computes the findings: after a graph write changing no row."""
    graph.conn.execute("UPDATE edge SET properties = properties WHERE false")
    report = run_analysis(graph.conn, **options)
    assert report.unchanged_since is None and not report.findings_repeated
    return report


def test_an_unchanged_reanalysis_repeats_the_findings_a_full_run_computes(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, first = analysed_lab
    seen = findings_seen(graph, first)
    assert len(seen["findings"]) > 3 and seen["attack_path_posture"]
    assert any(row[3] > 0 for row in seen["attack_path_risk_counts"])  # an impacted asset somewhere

    second = run_analysis(graph.conn)
    assert second.unchanged_since == first.started_at and second.findings_repeated
    repeated = findings_seen(graph, second)
    history = list(HISTORY_COLUMNS)
    assert [repeated[table] for table in history] == [seen[table] for table in history]
    assert findings_seen(graph, force_full_run(graph)) == repeated


def test_an_accepted_or_expired_acceptance_makes_an_unchanged_reanalysis_count_again(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, first = analysed_lab
    base = first.started_at + timedelta(minutes=1)
    # The finding of the type with the most impact, accepted for an hour: its type's risk falls to zero.
    (finding_id, finding) = graph.conn.execute(
        "SELECT id, finding FROM attack_path_findings WHERE deleted_at IS NULL "
        "ORDER BY impact_count DESC, id LIMIT 1").fetchone()
    graph.conn.execute("UPDATE attack_path_findings SET accepted_until = %s, updated_at = %s WHERE id = %s",
                       (base + timedelta(hours=1), base, finding_id))

    def risk(report: AnalysisReport) -> int:
        return sum(row[3] for row in findings_seen(graph, report)["attack_path_risk_counts"] if row[1] == finding)

    before = risk(first)
    accepted = run_analysis(graph.conn, now=base + timedelta(minutes=10))
    assert accepted.unchanged_since is not None and not accepted.findings_repeated
    seen_accepted, risk_accepted = findings_seen(graph, accepted), risk(accepted)
    still = run_analysis(graph.conn, now=base + timedelta(minutes=20))
    assert still.findings_repeated and findings_seen(graph, still) == seen_accepted

    expired = run_analysis(graph.conn, now=base + timedelta(hours=2))
    assert expired.unchanged_since is not None and not expired.findings_repeated
    assert risk(expired) == before > risk_accepted
    seen_expired = findings_seen(graph, expired)
    assert findings_seen(graph, force_full_run(graph, now=base + timedelta(hours=3))) == seen_expired


def test_a_new_tier_zero_selector_makes_an_unchanged_reanalysis_find_again(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, first = analysed_lab
    jones = object_id(graph, "JONES@ESC1.LOCAL")
    live = "SELECT count(*) FROM attack_path_findings WHERE deleted_at IS NULL AND principal = %s"
    assert graph.conn.execute(live, (jones,)).fetchone()[0] > 0
    (selector,) = graph.conn.execute(
        "INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name) "
        "SELECT id, 'jones' FROM asset_group_tags WHERE name = 'Tier Zero' RETURNING id").fetchone()
    graph.conn.execute("INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) VALUES (%s, 1, %s)",
                       (selector, jones))

    second = run_analysis(graph.conn)
    assert second.unchanged_since is not None and second.zones is not None and second.zones.changed
    assert not second.findings_repeated
    assert "JONES@ESC1.LOCAL" in tier_zero(graph)
    assert graph.conn.execute(live, (jones,)).fetchone()[0] == 0  # Tier Zero now: no attack path from it
    assert run_analysis(graph.conn).findings_repeated  # the zones stand again


def test_a_new_edge_makes_the_next_run_find_again(analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, _ = analysed_lab
    assert run_analysis(graph.conn).findings_repeated
    ingest_edges(graph, ("JONES@ESC1.LOCAL", ADEdge.GenericAll, "DOMAIN ADMINS@ESC1.LOCAL"))
    report = run_analysis(graph.conn)
    assert report.unchanged_since is None and not report.findings_repeated
    jones = object_id(graph, "JONES@ESC1.LOCAL")
    assert graph.conn.execute("SELECT count(*) FROM attack_path_findings WHERE deleted_at IS NULL "
                              "AND principal = %s AND finding = 'T0GenericAll'", (jones,)).fetchone()[0] == 1


def system_tags(graph: Graph, name: str) -> str | None:
    row = graph.conn.execute("SELECT properties->>'system_tags' FROM node WHERE properties->>'name' = %s",
                             (name,)).fetchone()
    assert row is not None
    return row[0]


def words_held(graph: Graph) -> set[int]:
    rows = graph.conn.execute("SELECT id FROM node WHERE 'admin_tier_0' = ANY(string_to_array("
                              "coalesce(properties->>'system_tags', ''), ' '))")
    return {row[0] for row in rows}


def tier_zero_ids(graph: Graph) -> set[int]:
    rows = graph.conn.execute("SELECT n.id FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = %s",
                              (TIER_ZERO_TAG,))
    return {row[0] for row in rows}


def test_a_member_leaving_tier_zero_without_a_graph_write_loses_its_system_tag(
        analysed_lab: tuple[Graph, AnalysisReport]) -> None:
    graph, _ = analysed_lab
    jones = object_id(graph, "JONES@ESC1.LOCAL")
    (selector,) = graph.conn.execute(
        "INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name) "
        "SELECT id, 'jones' FROM asset_group_tags WHERE name = 'Tier Zero' RETURNING id").fetchone()
    graph.conn.execute("INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) VALUES (%s, 1, %s)",
                       (selector, jones))
    joined = run_analysis(graph.conn)
    assert joined.unchanged_since is not None
    assert "JONES@ESC1.LOCAL" in tier_zero(graph) and "admin_tier_0" in (system_tags(graph, "JONES@ESC1.LOCAL") or "")

    graph.conn.execute("UPDATE asset_group_tag_selectors SET disabled_at = now() WHERE id = %s", (selector,))
    left = run_analysis(graph.conn)
    assert left.unchanged_since is not None and left.zones is not None and left.zones.changed
    assert "JONES@ESC1.LOCAL" not in tier_zero(graph)
    assert "admin_tier_0" not in (system_tags(graph, "JONES@ESC1.LOCAL") or "")
    assert words_held(graph) == tier_zero_ids(graph)


def findings_updates(graph: Graph) -> tuple[int, int]:
    """Rows of attack_path_findings this transaction updated, and how many of them in place (heap-only)."""
    row = graph.conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables "
                             "WHERE relname = 'attack_path_findings'").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_a_repeated_run_writes_no_finding_row_and_a_full_run_updates_them_in_place(database: Database) -> None:
    # Whether an update stays on its page depends on the room left there, so the findings table must be this test's
    # alone: other workers' analyses insert into the shared one (and roll back) at the same time and take that room.
    with scratch_database(database, "hg_findings_rows") as scratch, scratch.connect_raw() as conn:
        graph = Graph(conn)
        ingest_lab(graph)
        run_analysis(conn)
        live = conn.execute("SELECT count(*) FROM attack_path_findings WHERE deleted_at IS NULL").fetchone()[0]
        updated, in_place = findings_updates(graph)
        report = run_analysis(conn)
        assert report.findings_repeated
        assert findings_updates(graph) == (updated, in_place)
        shown = conn.execute(f"SELECT DISTINCT {SHOWN_UPDATED_AT} FROM attack_path_findings "
                             "WHERE deleted_at IS NULL").fetchall()
        assert shown == [(report.started_at,)]
        # A full run writes each live finding's row (impact, properties, its time); the table keeps half of each
        # page free (migration 0049) so the new version stays on its page with no index written.
        force_full_run(graph)
        now_updated, now_in_place = findings_updates(graph)
        assert now_updated - updated == live > 3
        assert now_in_place - in_place == live
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'attack_path_findings'").fetchone()
        assert options is not None and "fillfactor=50" in (options[0] or [])


def test_an_unchanged_reanalysis_leaves_the_edge_generation_so_the_path_copy_stays(database: Database) -> None:
    # The path searches' copy of the edges is built again when the edge generation moves: at a million objects 15 s
    # of searches in PostgreSQL instead, for nothing. It moves at the commit of a transaction that wrote `edge`, so
    # the runs commit, in a database of their own.
    with scratch_database(database, "hg_reanalysis") as scratch, scratch.connect_raw() as conn:
        graph = Graph(conn)
        ingest_lab(graph)
        assert run_analysis(conn).unchanged_since is None
        conn.commit()
        before = current_version(conn)
        report = run_analysis(conn)
        conn.commit()
        assert report.unchanged_since is not None and report.findings_repeated
        assert current_version(conn) == before
