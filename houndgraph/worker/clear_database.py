"""Carrying out a clear-database request (`POST /api/v2/clear-database`), a step of the datapipe's tick."""

from __future__ import annotations

import psycopg

from houndgraph.worker import clear_database_repository as purge_repo
from houndgraph.worker import loop_repository as repo
from houndgraph.worker.clear_database_repository import PurgeRow


def carry_out(conn: psycopg.Connection, request: PurgeRow) -> list[str]:
    """Delete what `request` names and the request itself in one transaction; the uploads (stored paths) of the jobs
    it canceled or deleted, for the caller to discard once that committed."""
    discard: list[str] = []
    with conn.transaction():
        if request.deletes_nodes:
            discard += purge_repo.cancel_active_jobs(conn)
        if request.delete_all_graph:
            purge_repo.delete_all_graph(conn)
        if request.delete_source_kinds:
            purge_repo.delete_nodes_of_source_kinds(conn, request.delete_source_kinds)
        if request.delete_sourceless_graph:
            purge_repo.delete_sourceless_nodes(conn)
        if request.delete_relationships:
            purge_repo.delete_relationships(conn, request.delete_relationships)
        if request.delete_file_ingest_history:
            discard += purge_repo.delete_finished_jobs(conn)
        if request.delete_data_quality_history:
            purge_repo.delete_data_quality_history(conn)
        if request.delete_asset_group_selectors:
            purge_repo.delete_custom_selectors(conn, request.delete_asset_group_selectors)
        # What remains of the graph is analysed again, as the reference does after a partial deletion.
        partial = request.delete_source_kinds or request.delete_sourceless_graph or \
            request.delete_relationships or request.delete_asset_group_selectors
        if partial and not request.delete_all_graph:
            repo.request_analysis(conn)
        purge_repo.delete_request(conn, request.id)
        repo.delete_unneeded_uploads(conn)
    return discard
