"""the reference's permissions, roles and feature flags as of BloodHound 9.8; password changes move the cache

Permissions: `db.Wipe` (clearing the database; only the Administrator holds it), `audit_log.Read` (the audit
log), `auth.ReadUsersMinimal` (the user list for sharing saved queries; it replaced `auth.ReadUsers` in the
User, Read-Only and Power User roles), `auth.ReadProviders`, `collection.ReadJobs`, `graphdb.ReadIngest`,
`opengraph.Read`/`Write`, `analysis.Request`, `alerts.Read`/`Manage`; `auth.ManageAppConfig` and
`auth.AcceptEULA` are gone (the reference seeds neither). The Auditor role reads data, users and the audit log.

Feature flags: every key the reference's migrations define up to 9.8 that this service lacked, with the
reference's default, and the defaults the reference changed since (OpenGraph search and extension management
on, client bearer authentication on).

API tokens may expire: `auth_tokens.expires_at`, set at creation from `auth.api_token_expiration` while the
`api_key_expiration_support` flag is on (both off by default, as in the reference).

`GET /api/v2/self` shows the caller's password secret (expiry, TOTP activation): a change of `auth_secrets`
now moves the cache generation as a change of the user does.

Revision ID: 0029
Revises: 0028
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

NEW_PERMISSIONS = [
    ("db", "Wipe"), ("audit_log", "Read"), ("auth", "ReadUsersMinimal"), ("auth", "ReadProviders"),
    ("collection", "ReadJobs"), ("graphdb", "ReadIngest"), ("opengraph", "Read"), ("opengraph", "Write"),
    ("analysis", "Request"), ("alerts", "Read"), ("alerts", "Manage"),
]
GONE_PERMISSIONS = [("auth", "ManageAppConfig"), ("auth", "AcceptEULA")]

_READ_ONLY = [("app", "ReadAppConfig"), ("risks", "GenerateReport"), ("auth", "CreateToken"), ("auth", "ManageSelf"),
              ("auth", "ReadUsersMinimal"), ("graphdb", "Read"), ("saved_queries", "Read"), ("opengraph", "Read")]
_USER = [*_READ_ONLY, ("clients", "Read"), ("saved_queries", "Write")]
_POWER_USER = [*_USER, ("app", "WriteAppConfig"), ("risks", "ManageRisks"), ("clients", "Manage"),
               ("clients", "Tasking"), ("collection", "ManageJobs"), ("graphdb", "Write"), ("graphdb", "Ingest"),
               ("graphdb", "ReadIngest"), ("graphdb", "Mutate")]
_AUDITOR = [("app", "ReadAppConfig"), ("risks", "GenerateReport"), ("audit_log", "Read"), ("auth", "CreateToken"),
            ("auth", "ManageSelf"), ("auth", "ReadUsers"), ("auth", "ReadUsersMinimal"), ("auth", "ReadProviders"),
            ("graphdb", "Read"), ("graphdb", "ReadIngest"), ("saved_queries", "Read"), ("clients", "Read"),
            ("collection", "ReadJobs"), ("opengraph", "Read"), ("alerts", "Read")]
# The Administrator holds every permission.
GRANTS = {
    "Power User": _POWER_USER,
    "User": _USER,
    "Read-Only": _READ_ONLY,
    "Upload-Only": [("clients", "Tasking"), ("graphdb", "Ingest"), ("graphdb", "ReadIngest")],
    "Auditor": _AUDITOR,
}

# (key, name, description, enabled, user_updatable)
NEW_FLAGS = [
    ("open_graph_phase_2", "Open Graph Phase 2", "Open Graph Phase 2 features", True, False),
    ("finished_jobs_log_v2", "Finished Jobs Log Update",
     "An updated Finished Jobs Log with filtering and more info.", False, False),
    ("scheduled_analysis_configuration", "Scheduled Analysis Configuration",
     "Enable Scheduled Analysis Configuration form in the UI", False, False),
    ("openhound_support", "OpenHound Support", "Enable creation and communication with OpenHound platform",
     False, False),
    ("api_key_expiration_support", "API Key Expiration Support", "Enables API Key Expiration configuration options",
     False, False),
    ("findings_table", "Findings Table", "Enables a new table view for findings.", False, False),
    ("collector_support_bundle", "Collector Support Bundle",
     "Enables the ability to upload and download support bundles to and from BHE, and access to the option to "
     "define log level.", True, False),
    ("alerts", "Alerts", "Enable Alerts", False, False),
    ("opengraph_entity_panel", "OpenGraph Entity Panel",
     "Enable/Disable Customized Entity Panel Support for OpenGraph Extensions", False, True),
    ("use_raw_object_id", "Use Raw Object ID",
     "When enabled, ingestion preserves the original case of object IDs instead of uppercasing them, fixing "
     "case-collision issues for sources with case-sensitive identifiers.", False, False),
    ("opengraph_data_quality", "OpenGraph Data Quality",
     "Enables the collection and storage of data quality statistics for OpenGraph extensions.", False, True),
    ("artifact_expiration_cleanup", "Artifact Expiration Cleanup",
     "Enables automatic deletion of expired artifact files and metadata.", True, False),
    ("entra_domain_services", "Microsoft Entra Domain Services",
     "Enables Microsoft Entra Domain Services post-processing. Changes take effect during the next analysis run.",
     False, True),
    ("managed_openhound_collection", "Managed OpenHound Collection",
     "Enables managed OpenHound collection provided by BloodHound Enterprise.", False, False),
]
# (key, enabled, user_updatable) as the reference's later migrations left them.
CHANGED_FLAGS = [
    ("opengraph_search", True, False),
    ("opengraph_extension_management", True, True),
    ("client_bearer_auth", True, False),
]
API_TOKEN_EXPIRATION = ("auth.api_token_expiration", "API Token Expiration",
                        "This configuration parameter enables/disables created API tokens to expire after the set "
                        "number of days.", {"enabled": False, "expiration_period": 90})
parameters = sa.table(
    "parameters",
    sa.column("key", sa.String), sa.column("name", sa.String), sa.column("description", sa.String),
    sa.column("value", postgresql.JSONB),
)
feature_flags = sa.table(
    "feature_flags",
    sa.column("key", sa.String), sa.column("name", sa.String), sa.column("description", sa.String),
    sa.column("enabled", sa.Boolean), sa.column("user_updatable", sa.Boolean),
)


def _pairs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"('{authority}', '{name}')" for authority, name in pairs)


def upgrade() -> None:
    op.execute(f"INSERT INTO permissions (authority, name) SELECT * FROM (VALUES {_pairs(NEW_PERMISSIONS)}) AS p "
               "ON CONFLICT DO NOTHING")
    op.execute(f"DELETE FROM permissions WHERE (authority, name) IN ({_pairs(GONE_PERMISSIONS)})")
    op.execute("INSERT INTO roles (name, description) VALUES ('Auditor', 'Can read data and audit logs') "
               "ON CONFLICT DO NOTHING")
    op.execute("DELETE FROM roles_permissions WHERE role_id IN (SELECT id FROM roles WHERE name <> 'Administrator')")
    op.execute("INSERT INTO roles_permissions (role_id, permission_id) SELECT r.id, p.id FROM roles r, permissions p "
               "WHERE r.name = 'Administrator' ON CONFLICT DO NOTHING")
    for role, grants in GRANTS.items():
        op.execute(f"INSERT INTO roles_permissions (role_id, permission_id) SELECT r.id, p.id FROM roles r "
                   f"JOIN permissions p ON (p.authority, p.name) IN ({_pairs(grants)}) WHERE r.name = '{role}'")

    op.execute(postgresql.insert(feature_flags).values([
        {"key": key, "name": name, "description": description, "enabled": enabled, "user_updatable": updatable}
        for key, name, description, enabled, updatable in NEW_FLAGS
    ]).on_conflict_do_nothing(index_elements=["key"]))
    for key, enabled, updatable in CHANGED_FLAGS:
        op.execute(feature_flags.update().where(feature_flags.c.key == key)
                   .values(enabled=enabled, user_updatable=updatable))

    key, name, description, value = API_TOKEN_EXPIRATION
    op.execute(postgresql.insert(parameters).values(key=key, name=name, description=description, value=value)
               .on_conflict_do_nothing(index_elements=["key"]))
    op.add_column("auth_tokens", sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))

    op.execute("CREATE CONSTRAINT TRIGGER auth_secrets_insert_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE "
               "ON auth_secrets DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation()")


def downgrade() -> None:
    op.execute("DROP TRIGGER auth_secrets_insert_moves_cache_generation ON auth_secrets")
    op.drop_column("auth_tokens", "expires_at")
    op.execute(parameters.delete().where(parameters.c.key == API_TOKEN_EXPIRATION[0]))
    op.execute(feature_flags.delete().where(feature_flags.c.key.in_([flag[0] for flag in NEW_FLAGS])))
    op.execute("DELETE FROM roles WHERE name = 'Auditor'")
    op.execute(f"DELETE FROM permissions WHERE (authority, name) IN ({_pairs(NEW_PERMISSIONS)})")
    op.execute(f"INSERT INTO permissions (authority, name) SELECT * FROM (VALUES {_pairs(GONE_PERMISSIONS)}) AS p "
               "ON CONFLICT DO NOTHING")
