"""`POST /api/v2/clear-database`: checked in the request, carried out by the datapipe."""

from __future__ import annotations

import time

import httpx
import pytest

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.datapipe.helpers import paused_datapipe
from tests.factories import account
from tests.file_upload.helpers import (
    ADCS_ZIP,
    TESTLAB,
    graph_size,
    ingest_paths,
    job,
    object_ids_by_kind,
    start_job,
    stored_counts,
    upload_path,
    wait_for_job,
)
from tests.openapi import assert_matches_spec
from tests.user.helpers import assert_error

CANCELED = 3


def clear(http: httpx.Client, body: object) -> httpx.Response:
    return http.post("/api/v2/clear-database", json=body)


def wait_for_purges(database: Database, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    with database.connect_raw(autocommit=True) as conn:
        while conn.execute("SELECT count(*) FROM purge_requests").fetchone()[0]:
            assert time.monotonic() < deadline, "the clear-database request was not carried out"
            time.sleep(0.1)


def edge_count(database: Database, kind: str) -> int:
    with database.connect_raw() as conn:
        return conn.execute("SELECT count(*) FROM edge JOIN kind ON kind.id = edge.kind_id WHERE kind.name = %s",
                            (kind,)).fetchone()[0]


@pytest.mark.parametrize(("body", "message"), [
    ({}, "please select something to delete"),
    ({"deleteCollectedGraphData": False, "deleteSourceKinds": [], "deleteRelationships": None},
     "please select something to delete"),
    ({"deleteCollectedGraphData": True, "deleteSourceKinds": [1]},
     "request may only specify either deleteCollectedGraphData or deleteSourceKinds, not both"),
    ({"deleteSourceKinds": [1, 999]}, "failure building delete request: requested source kind id 999 not found"),
    ({"deleteRelationships": ["MemberOf", "NoSuchEdge"]},
     "failure building delete request: unknown relationship kind 'NoSuchEdge'"),
])
def test_requests_that_are_refused(admin: httpx.Client, body: dict, message: str) -> None:
    assert_error(clear(admin, body), 400, message)


def test_malformed_bodies_are_refused(admin: httpx.Client) -> None:
    response = admin.post("/api/v2/clear-database", content=b"{nope", headers={"Content-Type": "application/json"})
    assert_error(response, 400, "JSON malformed.")
    assert clear(admin, {"deleteCollectedGraphData": "yes"}).status_code == 400


def test_only_holders_of_db_wipe_may_clear(live_server: LiveServer, database: Database) -> None:
    # The reference's db:Wipe, which only the Administrator holds: a Power User may write the graph, not wipe it.
    with account(live_server, database, "Power User") as power_user:
        assert_error(clear(power_user.http, {"deleteCollectedGraphData": True}), 403, "not authorized")
    with account(live_server, database, "Read-Only") as reader:
        assert_error(clear(reader.http, {"deleteCollectedGraphData": True}), 403, "not authorized")
    with account(live_server, database, "Upload-Only") as uploader:
        assert_error(clear(uploader.http, {"deleteCollectedGraphData": True}), 403, "not authorized")


def kept_uploads(database: Database, job_id: int) -> int:
    """Rows of the job's uploads still kept in the database."""
    with database.connect_raw() as conn:
        row = conn.execute("SELECT count(*) FROM upload_chunks WHERE upload_id IN "
                           "(SELECT upload_id FROM ingest_tasks WHERE job_id = %s)", (job_id,)).fetchone()
    assert row is not None
    return int(row[0])


def test_clearing_the_graph_empties_it_and_cancels_jobs_in_progress(admin: httpx.Client,
                                                                    empty_graph: Database) -> None:
    ingest_paths(admin, [ADCS_ZIP])
    with paused_datapipe(empty_graph):
        running = start_job(admin)
        upload_path(admin, running["id"], TESTLAB / "users.json")
        assert kept_uploads(empty_graph, running["id"]) == 1
        response = clear(admin, {"deleteCollectedGraphData": True})
        assert response.status_code == 204 and response.content == b""
        assert_matches_spec(response, "/api/v2/clear-database")
    wait_for_purges(empty_graph)
    with empty_graph.connect_raw() as conn:
        assert graph_size(conn) == (0, 0)
    canceled = job(admin, running["id"])
    assert canceled["status"] == CANCELED
    assert canceled["status_message"].startswith("canceled")
    # The canceled job's unread upload goes with the purge.
    assert kept_uploads(empty_graph, running["id"]) == 0
    assert_error(admin.post(f"/api/v2/file-upload/{running['id']}/end"), 400, "job must be in running status to end")


def test_deleting_relationships_keeps_the_rest(admin: httpx.Client, empty_graph: Database) -> None:
    ingest_paths(admin, [TESTLAB / "groups.json", TESTLAB / "users.json"])
    members = edge_count(empty_graph, "MemberOf")
    assert members > 0
    with empty_graph.connect_raw() as conn:
        nodes, edges = graph_size(conn)
    assert clear(admin, {"deleteRelationships": ["MemberOf"]}).status_code == 204
    wait_for_purges(empty_graph)
    assert edge_count(empty_graph, "MemberOf") == 0
    with empty_graph.connect_raw() as conn:
        assert graph_size(conn) == (nodes, edges - members)


def test_deleting_by_source_kind(admin: httpx.Client, empty_graph: Database) -> None:
    ingest_paths(admin, [TESTLAB / "users.json"])
    users = object_ids_by_kind([TESTLAB / "users.json"])
    with empty_graph.connect_raw(autocommit=True) as conn:
        # A node of no source kind, as an OpenGraph file without metadata would leave.
        conn.execute("INSERT INTO kind (name) VALUES ('Person') ON CONFLICT DO NOTHING")
        conn.execute("INSERT INTO node (kind_ids, properties) SELECT ARRAY[id], '{\"objectid\": \"P-1\"}' "
                     "FROM kind WHERE name = 'Person'")
    assert clear(admin, {"deleteSourceKinds": [0]}).status_code == 204
    wait_for_purges(empty_graph)
    with empty_graph.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM node WHERE properties->>'objectid' = 'P-1'").fetchone()[0] == 0
        assert stored_counts(conn, users) == {"User": len(users["User"])}, "AD nodes carry Base: kept"
    assert clear(admin, {"deleteSourceKinds": [1]}).status_code == 204  # Base: every AD node
    wait_for_purges(empty_graph)
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, users) == {"User": 0}
        base_nodes = conn.execute("SELECT count(*) FROM node WHERE kind_ids && "
                                  "ARRAY(SELECT id FROM kind WHERE name = 'Base')::smallint[]").fetchone()[0]
        assert base_nodes == 0


def test_deleting_ingest_history_keeps_jobs_in_progress(admin: httpx.Client, database: Database) -> None:
    finished = ingest_paths(admin, [TESTLAB / "ous.json"])
    running = start_job(admin)
    assert clear(admin, {"deleteFileIngestHistory": True}).status_code == 204
    wait_for_purges(database)
    listed = admin.get("/api/v2/file-upload", params={"id": f"gte:{finished['id']}"}).json()["data"]
    assert [item["id"] for item in listed] == [running["id"]]
    assert job(admin, running["id"])["status"] == 1
    upload_path(admin, running["id"], TESTLAB / "ous.json")
    admin.post(f"/api/v2/file-upload/{running['id']}/end")
    assert wait_for_job(admin, running["id"])["status"] == 2


def test_graph_deletion_obeys_its_feature_flag(admin: httpx.Client, database: Database) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE feature_flags SET enabled = false WHERE key = 'clear_graph_data'")
        try:
            assert_error(clear(admin, {"deleteCollectedGraphData": True}), 400,
                         "deleting graph data is currently disabled")
            assert_error(clear(admin, {"deleteSourceKinds": [2]}), 400, "deleting graph data is currently disabled")
        finally:
            conn.execute("UPDATE feature_flags SET enabled = true WHERE key = 'clear_graph_data'")


def test_deleting_data_quality_history(admin: httpx.Client, database: Database) -> None:
    ingest_paths(admin, [TESTLAB / "domains.json", TESTLAB / "users.json"])  # analysis records a snapshot
    with database.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM ad_data_quality_aggregations").fetchone()[0] > 0
    assert clear(admin, {"deleteDataQualityHistory": True}).status_code == 204
    wait_for_purges(database)
    with database.connect_raw() as conn:
        for table in ("ad_data_quality_stats", "ad_data_quality_aggregations", "azure_data_quality_stats",
                      "azure_data_quality_aggregations"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
    assert admin.get("/api/v2/platform/ad/data-quality-stats").json()["count"] == 0
