"""ingest jobs and tasks, queued clear-database requests, source kinds (issue #3)

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The reference numbers the two built-in source kinds 1 and 2; OpenGraph source kinds follow.
BUILTIN_SOURCE_KINDS = [(1, "Base"), (2, "AZBase")]


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "ingest_jobs",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=True),
        sa.Column("user_email_address", sa.String(length=255), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("status_message", sa.String(), nullable=False),
        sa.Column("start_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("end_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_ingest", sa.DateTime(timezone=True), nullable=False),
        sa.Column("total_files", sa.Integer(), nullable=False),
        sa.Column("completed_files", sa.Integer(), nullable=False),
        sa.Column("failed_files", sa.Integer(), nullable=False),
        sa.Column("nodes_written", sa.BigInteger(), nullable=False),
        sa.Column("edges_written", sa.BigInteger(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_ingest_jobs_user_id_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ingest_jobs")),
    )
    op.create_index(op.f("ix_ingest_jobs_status"), "ingest_jobs", ["status"])
    op.create_index(op.f("ix_ingest_jobs_user_id"), "ingest_jobs", ["user_id"])

    op.create_table(
        "ingest_tasks",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("job_id", sa.BigInteger(), nullable=False),
        sa.Column("file_name", sa.String(), nullable=False),
        sa.Column("parent_file_name", sa.String(), nullable=True),
        sa.Column("stored_path", sa.String(), nullable=False),
        sa.Column("member_name", sa.String(), nullable=True),
        sa.Column("owns_file", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("errors", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("warnings", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("nodes_written", sa.BigInteger(), nullable=False),
        sa.Column("edges_written", sa.BigInteger(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["job_id"], ["ingest_jobs.id"], name=op.f("fk_ingest_tasks_job_id_ingest_jobs"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ingest_tasks")),
    )
    op.create_index(op.f("ix_ingest_tasks_job_id"), "ingest_tasks", ["job_id"])
    op.create_index(op.f("ix_ingest_tasks_state"), "ingest_tasks", ["state"])

    op.create_table(
        "purge_requests",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("requested_by", sa.Uuid(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delete_all_graph", sa.Boolean(), nullable=False),
        sa.Column("delete_sourceless_graph", sa.Boolean(), nullable=False),
        sa.Column("delete_source_kinds", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("delete_relationships", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("delete_file_ingest_history", sa.Boolean(), nullable=False),
        sa.Column("delete_data_quality_history", sa.Boolean(), nullable=False),
        sa.Column("delete_asset_group_selectors", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.ForeignKeyConstraint(["requested_by"], ["users.id"], name=op.f("fk_purge_requests_requested_by_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_purge_requests")),
    )

    op.create_table(
        "source_kinds",
        sa.Column("id", sa.SmallInteger(), sa.Identity(always=False, start=len(BUILTIN_SOURCE_KINDS) + 1),
                  nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_source_kinds")),
        sa.UniqueConstraint("name", name=op.f("uq_source_kinds_name")),
    )
    source_kinds = sa.table("source_kinds", sa.column("id"), sa.column("name"), sa.column("active"))
    op.bulk_insert(source_kinds, [{"id": i, "name": name, "active": True} for i, name in BUILTIN_SOURCE_KINDS])


def downgrade() -> None:
    op.drop_table("source_kinds")
    op.drop_table("purge_requests")
    op.drop_index(op.f("ix_ingest_tasks_state"), table_name="ingest_tasks")
    op.drop_index(op.f("ix_ingest_tasks_job_id"), table_name="ingest_tasks")
    op.drop_table("ingest_tasks")
    op.drop_index(op.f("ix_ingest_jobs_user_id"), table_name="ingest_jobs")
    op.drop_index(op.f("ix_ingest_jobs_status"), table_name="ingest_jobs")
    op.drop_table("ingest_jobs")
