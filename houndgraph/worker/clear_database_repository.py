"""The SQL of clearing the database (queued `POST /api/v2/clear-database` requests), run by the datapipe."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from houndgraph.models.ingest_job import ACTIVE_JOB_STATUSES, FINISHED_JOB_STATUSES, JobStatus
from houndgraph.models.ingest_task import TaskState
from houndgraph.models.source_kind import BUILTIN_SOURCE_KINDS

CANCELED_BY_PURGE = "canceled: the graph was cleared while this job was in progress"
# The snapshots each analysis run records (migration 0008).
DATA_QUALITY_TABLES = ("ad_data_quality_stats", "ad_data_quality_aggregations", "azure_data_quality_stats",
                       "azure_data_quality_aggregations")


@dataclass(frozen=True, slots=True)
class PurgeRow:
    id: int
    delete_all_graph: bool
    delete_sourceless_graph: bool
    delete_source_kinds: list[str]
    delete_relationships: list[str]
    delete_file_ingest_history: bool
    delete_data_quality_history: bool
    delete_asset_group_selectors: list[int]

    @property
    def deletes_nodes(self) -> bool:
        return self.delete_all_graph or self.delete_sourceless_graph or bool(self.delete_source_kinds)


def next_request(conn: psycopg.Connection) -> PurgeRow | None:
    row = conn.execute(
        "SELECT id, delete_all_graph, delete_sourceless_graph, delete_source_kinds, delete_relationships, "
        "delete_file_ingest_history, delete_data_quality_history, delete_asset_group_selectors "
        "FROM purge_requests ORDER BY id LIMIT 1"
    ).fetchone()
    return PurgeRow(*row) if row else None


def delete_request(conn: psycopg.Connection, request_id: int) -> None:
    conn.execute("DELETE FROM purge_requests WHERE id = %s", (request_id,))


def cancel_active_jobs(conn: psycopg.Connection) -> list[str]:
    """Jobs still adding to the graph are canceled with their unread files; returns the files to delete."""
    conn.execute(
        "UPDATE ingest_jobs SET status = %s, status_message = %s, end_time = now(), updated_at = now() "
        "WHERE status = ANY(%s)",
        (JobStatus.CANCELED, CANCELED_BY_PURGE, [int(s) for s in ACTIVE_JOB_STATUSES]),
    )
    rows = conn.execute(
        "UPDATE ingest_tasks AS task SET state = %s, updated_at = now() FROM ingest_jobs AS job "
        "WHERE job.id = task.job_id AND job.status = %s AND task.state = ANY(%s) "
        "RETURNING task.stored_path, task.owns_file",
        (str(TaskState.CANCELED), JobStatus.CANCELED, [str(TaskState.PENDING), str(TaskState.RUNNING)]),
    ).fetchall()
    return sorted({path for path, owned in rows if owned})


def delete_all_graph(conn: psycopg.Connection) -> None:
    # TRUNCATE is transactional in PostgreSQL and, unlike DELETE, leaves no dead rows to vacuum.
    # The kind catalogue stays: kind ids are referenced by code caches and stay stable.
    conn.execute("TRUNCATE edge, node RESTART IDENTITY")
    conn.execute("DELETE FROM source_kinds WHERE id > %s", (len(BUILTIN_SOURCE_KINDS),))
    # Node ids start again: selections (and their certifications) of the old nodes must not pass to new ones.
    conn.execute("DELETE FROM asset_group_tag_selector_nodes")


def delete_nodes_of_source_kinds(conn: psycopg.Connection, names: list[str]) -> int:
    """Nodes carrying any of the named source kinds (their edges go with them)."""
    deleted = conn.execute(
        "DELETE FROM node WHERE kind_ids && ARRAY(SELECT id FROM kind WHERE name = ANY(%s))::smallint[]",
        (names,),
    ).rowcount
    conn.execute("DELETE FROM source_kinds WHERE name = ANY(%s) AND id > %s", (names, len(BUILTIN_SOURCE_KINDS)))
    return deleted


def delete_sourceless_nodes(conn: psycopg.Connection) -> int:
    """Nodes carrying none of the source kinds (the reference's source kind 0)."""
    return conn.execute(
        "DELETE FROM node WHERE NOT kind_ids && ARRAY(SELECT kind.id FROM kind JOIN source_kinds "
        "ON source_kinds.name = kind.name)::smallint[]"
    ).rowcount


def delete_relationships(conn: psycopg.Connection, kinds: list[str]) -> int:
    return conn.execute(
        "DELETE FROM edge WHERE kind_id = ANY(ARRAY(SELECT id FROM kind WHERE name = ANY(%s)))", (kinds,)
    ).rowcount


def delete_finished_jobs(conn: psycopg.Connection) -> list[str]:
    """Ingest history: finished jobs and their tasks (jobs in progress are kept, or their upload would
    break half-way). Returns files still on disk that belonged to them."""
    rows = conn.execute(
        "DELETE FROM ingest_tasks AS task USING ingest_jobs AS job WHERE job.id = task.job_id "
        "AND job.status = ANY(%s) RETURNING task.stored_path, task.owns_file",
        ([int(s) for s in FINISHED_JOB_STATUSES],),
    ).fetchall()
    conn.execute("DELETE FROM ingest_jobs WHERE status = ANY(%s)", ([int(s) for s in FINISHED_JOB_STATUSES],))
    return sorted({path for path, owned in rows if owned})


def delete_data_quality_history(conn: psycopg.Connection) -> None:
    for table in DATA_QUALITY_TABLES:  # constants above, never input
        conn.execute(f"DELETE FROM {table}")


def delete_custom_selectors(conn: psycopg.Connection, tag_ids: list[int]) -> None:
    """`deleteAssetGroupSelectors`: the selectors users added to these tags (the defaults stay)."""
    conn.execute("DELETE FROM asset_group_tag_selectors WHERE asset_group_tag_id = ANY(%s) AND NOT is_default",
                 (tag_ids,))
