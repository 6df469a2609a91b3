"""collection clients, their signing tokens, events (schedules), collection jobs and domain results

A client token is a row of `auth_tokens` with `client_id` set and no `user_id`, so one signature
checker serves users and clients. `client_jobs (event_id, execution_time)` is unique: however many
processes run the scheduler, an occurrence of an event becomes one job.

Revision ID: 0013
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

COLLECTION_FLAGS = ("session_collection", "local_group_collection", "ad_structure_collection",
                    "cert_services_collection", "ca_registry_collection", "dc_registry_collection",
                    "all_trusted_domains")


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    ]


def _flags() -> list[sa.Column]:
    return [sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false()) for name in COLLECTION_FLAGS]


def upgrade() -> None:
    op.create_table(
        "clients",
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("domain_controller", sa.String(255)),
        sa.Column("ip_address", sa.String(64), nullable=False, server_default=""),
        sa.Column("hostname", sa.String(255), nullable=False, server_default=""),
        sa.Column("configured_user", sa.String(255), nullable=False, server_default=""),
        sa.Column("version", sa.String(64), nullable=False, server_default=""),
        sa.Column("user_sid", sa.String(255)),
        sa.Column("last_checkin", sa.DateTime(timezone=True)),
        sa.Column("current_job_id", sa.BigInteger),
        sa.Column("issuer_address", sa.String(255), nullable=False, server_default=""),
        sa.Column("issuer_address_override", sa.String(255), nullable=False, server_default=""),
        *_timestamps(),
        sa.Column("deleted_at", sa.DateTime(timezone=True)),
    )
    # A name is unique among the clients that are not deleted.
    op.create_index("uq_clients_live_name", "clients", ["name"], unique=True,
                    postgresql_where=sa.text("deleted_at IS NULL"))
    op.alter_column("auth_tokens", "user_id", nullable=True)
    op.add_column("auth_tokens", sa.Column("client_id", sa.Uuid, sa.ForeignKey(
        "clients.id", ondelete="CASCADE", name="fk_auth_tokens_client_id_clients"), index=True))
    op.create_check_constraint(op.f("ck_auth_tokens_one_owner"), "auth_tokens", "(user_id IS NULL) <> (client_id IS NULL)")
    op.create_table(
        "client_events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("client_id", sa.Uuid, sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("rrule", sa.String, nullable=False),
        *_flags(),
        sa.Column("ous", JSONB, nullable=False, server_default="[]"),
        sa.Column("domains", JSONB, nullable=False, server_default="[]"),
        # Null once the rule has no occurrence left (COUNT or UNTIL reached).
        sa.Column("next_scheduled_at", sa.DateTime(timezone=True), index=True),
        *_timestamps(),
        sa.Column("deleted_at", sa.DateTime(timezone=True)),
    )
    op.create_table(
        "client_jobs",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("client_id", sa.Uuid, sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("client_events.id", ondelete="SET NULL")),
        sa.Column("execution_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("start_time", sa.DateTime(timezone=True)),
        sa.Column("end_time", sa.DateTime(timezone=True)),
        sa.Column("status", sa.Integer, nullable=False, index=True),
        sa.Column("status_message", sa.String, nullable=False, server_default=""),
        *_flags(),
        sa.Column("domain_controller", sa.String(255)),
        sa.Column("ous", JSONB, nullable=False, server_default="[]"),
        sa.Column("domains", JSONB, nullable=False, server_default="[]"),
        sa.Column("log", sa.Text, nullable=False, server_default=""),
        sa.Column("ingest_job_id", sa.BigInteger, sa.ForeignKey("ingest_jobs.id", ondelete="SET NULL")),
        *_timestamps(),
        sa.Column("deleted_at", sa.DateTime(timezone=True)),
        sa.UniqueConstraint("event_id", "execution_time", name="uq_client_jobs_event_occurrence"),
    )
    op.create_table(
        "domain_collection_results",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("job_id", sa.BigInteger, sa.ForeignKey("client_jobs.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("domain_name", sa.String, nullable=False),
        sa.Column("success", sa.Boolean, nullable=False),
        sa.Column("message", sa.String, nullable=False, server_default=""),
        *(sa.Column(f"{name}_count", sa.Integer, nullable=False, server_default="0") for name in (
            "user", "group", "computer", "gpo", "ou", "container", "aiaca", "rootca", "enterpriseca",
            "ntauthstore", "certtemplate", "deleted")),
        *_timestamps(),
    )


def downgrade() -> None:
    op.drop_table("domain_collection_results")
    op.drop_table("client_jobs")
    op.drop_table("client_events")
    op.drop_constraint("ck_auth_tokens_one_owner", "auth_tokens")
    op.drop_column("auth_tokens", "client_id")
    op.execute("DELETE FROM auth_tokens WHERE user_id IS NULL")
    op.alter_column("auth_tokens", "user_id", nullable=False)
    op.drop_table("clients")
