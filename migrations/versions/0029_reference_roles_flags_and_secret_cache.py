"""the reference's permissions, roles and feature flags as of BloodHound 9.8; password changes move the cache

Permissions: `db.Wipe` (clearing the database; only the Administrator holds it), `audit_log.Read` (the audit
log), `auth.ReadUsersMinimal` (the user list for sharing saved queries; it replaced `auth.ReadUsers` in the
User, Read-Only and Power User roles), `auth.ReadProviders`, `collection.ReadJobs`, `graphdb.ReadIngest`,
`opengraph.Read`/`Write`, `analysis.Request`, `alerts.Read`/`Manage`; `auth.ManageAppConfig` and
`auth.AcceptEULA` are gone (the reference seeds neither). The Auditor role reads data, users and the audit log.

Feature flags: every key the reference's migrations define up to 9.8 that this service lacked, with the
reference's default, and the defaults the reference changed since (OpenGraph search and extension management
on, client bearer authentication on).

The default zones and labels the reference seeds since 9.x: the Management Plane zone (position 2, after Tier
Zero; later zones move one down) with a rule per Entra ID management role, and the Decoy label (type 4).

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
MANAGEMENT_PLANE_DESCRIPTION = (
    "The management plane is the layer designated for enterprise-wide IT management functions, managing workloads "
    "and infrastructure, and controlling configuration and operational tasks across systems.")
# (role name, description, role template id), from Microsoft's Entra ID permissions reference, as the reference has
# them: each role's rule selects the tenant's AZRole of that template.
MANAGEMENT_PLANE_ROLES = [
    ("AI Administrator", "Manage all aspects of Microsoft 365 Copilot and AI-related enterprise services in "
     "Microsoft 365.", "D2562EDE-74DB-457E-A7B6-544E236EBB61"),
    ("Attribute Assignment Administrator", "Assign custom security attribute keys and values to supported Microsoft "
     "Entra objects.", "58A13EA3-C632-46AE-9EE0-9C0D43CD7F3D"),
    ("Attribute Provisioning Administrator", "Read and edit the provisioning configuration of all active custom "
     "security attributes for an application.", "ECB2C6BF-0AB6-418E-BD87-7986F8D63BBE"),
    ("Authentication Administrator", "Can access to view, set and reset authentication method information for any "
     "non-admin user.", "C4E39BD9-1100-46D3-8C65-FB160DA0071F"),
    ("Authentication Extensibility Administrator", "Customize sign in and sign up experiences for users by creating "
     "and managing custom authentication extensions.", "25A516ED-2FA0-40EA-A2D0-12923A21473A"),
    ("Authentication Policy Administrator", "Can create and manage the authentication methods policy, tenant-wide MFA "
     "settings, password protection policy, and verifiable credentials.", "0526716B-113D-4C15-B2C8-68E3C22B9F80"),
    ("B2C IEF Keyset Administrator", "Can manage secrets for federation and encryption in the Identity Experience "
     "Framework (IEF).", "AAF43236-0C0D-4D5F-883A-6955382AC081"),
    ("Cloud App Security Administrator", "Manage all aspects of the Defender for Cloud Apps product.",
     "892C5842-A9A6-463A-8041-72AA08CA3CF6"),
    ("Compliance Administrator", "Can read and manage compliance configuration and reports in Microsoft Entra ID and "
     "Microsoft 365.", "17315797-102D-40B4-93E0-432062CACA18"),
    ("Directory Synchronization Accounts", "Only used by Microsoft Entra Connect service.",
     "D29B2B05-8046-44BA-8758-1E26182FCF32"),
    ("Directory Writers", "Can read and write basic directory information. For granting access to applications, not "
     "intended for users.", "9360FEB5-F418-4BAA-8175-E2A00BAC4301"),
    ("Domain Name Administrator", "Can manage domain names in cloud and on-premises.",
     "8329153B-31D0-4727-B945-745EB3BC5F31"),
    ("Dynamics 365 Administrator", "Can manage all aspects of the Dynamics 365 product.",
     "44367163-EBA1-44C3-98AF-F5787879F96A"),
    ("Exchange Administrator", "Can manage all aspects of the Exchange product.", "29232CDF-9323-42FD-ADE2-1D097AF3E4DE"),
    ("External ID User Flow Administrator", "Can create and manage all aspects of user flows.",
     "6E591065-9BAD-43ED-90F3-E9424366D2F0"),
    ("External Identity Provider Administrator", "Can configure identity providers for use in direct federation.",
     "BE2F45A1-457D-42AF-A067-6EC1FA63BC45"),
    ("Global Secure Access Administrator", "Create and manage all aspects of Global Secure Internet Access and "
     "Microsoft Global Secure Private Access, including managing access to public and private endpoints.",
     "AC434307-12B9-4FA1-A708-88BF58CAABC1"),
    ("Groups Administrator", "Members of this role can create/manage groups, create/manage groups settings like naming "
     "and expiration policies, and view groups activity and audit reports.", "FDD7A751-B60B-444A-984C-02652FE8FA1C"),
    ("Helpdesk Administrator", "Can reset passwords for non-administrators and Helpdesk Administrators.",
     "729827E3-9C14-49F7-BB1B-9608F156BBB8"),
    ("Identity Governance Administrator", "Manage access using Microsoft Entra ID for identity governance scenarios.",
     "45D8D3C5-C802-45C6-B32A-1D70B5E1E86E"),
    ("Intune Administrator", "Can manage all aspects of the Intune product.", "3A2C62DB-5318-420D-8D74-23AFFEE5D9D5"),
    ("Knowledge Administrator", "Can configure knowledge, learning, and other intelligent features.",
     "B5A8DCF3-09D5-43A9-A639-8E29EF291470"),
    ("Lifecycle Workflows Administrator", "Create and manage all aspects of workflows and tasks associated with "
     "Lifecycle Workflows in Microsoft Entra ID.", "59D46F88-662B-457B-BCEB-5C3809E5908F"),
    ("Microsoft 365 Backup Administrator", "Back up and restore content across supported services (SharePoint, "
     "OneDrive, and Exchange Online) in Microsoft 365 Backup", "1707125E-0AA2-4D4D-8655-A7C786C76A25"),
    ("Microsoft 365 Migration Administrator", "Perform all migration functionality to migrate content to Microsoft 365 "
     "using Migration Manager.", "8C8B803F-96E1-4129-9349-20738D9F9652"),
    ("Partner Tier1 Support", "Do not use - not intended for general use.", "4BA39CA4-527C-499A-B93D-D9B492C50246"),
    ("Password Administrator", "Can reset passwords for non-administrators and Password Administrators.",
     "966707D0-3269-4727-9BE2-8C3A10F19B9D"),
    ("Power Platform Administrator", "Manage all aspects of Microsoft Dynamics 365, Power Apps and Power Automate.",
     "11648597-926C-4CF3-9C36-BCEBB0BA8DCC"),
    ("Security Operator", "Creates and manages security events and performs identity containment actions during "
     "security incidents.", "5F2222B1-57C3-48BA-8AD5-D4759F1FDE6F"),
    ("SharePoint Administrator", "Can manage all aspects of the SharePoint service.",
     "F28A1F50-F6E7-4571-818B-6A12F2AF6B6C"),
    ("Skype for Business Administrator", "Can manage all aspects of the Skype for Business product.",
     "75941009-915A-4869-ABE7-691BFF18279E"),
    ("Teams Administrator", "Can manage the Microsoft Teams service.", "69091246-20E8-4A56-AA4D-066075B2A7A8"),
    ("Teams Telephony Administrator", "Manage voice and telephony features and troubleshoot communication issues "
     "within the Microsoft Teams service.", "AA38014F-0993-46E9-9B45-30501A20909D"),
    ("User Administrator", "Can manage all aspects of users and groups, including resetting passwords for limited "
     "admins.", "FE930BE7-5E62-47DB-91AF-98C3A49A38B1"),
    ("Windows 365 Administrator", "Can provision and manage all aspects of Cloud PCs.",
     "11451D60-ACB2-45EB-A7D6-43D0F0125C13"),
    ("Yammer Administrator", "Manage all aspects of the Yammer service.", "810A2642-A034-447F-A5E8-41BEAA378541"),
]
DECOY_DESCRIPTION = "Accounts that should be excluded from predefined attack path queries."
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

    _default_zone_and_label()

    op.execute("CREATE CONSTRAINT TRIGGER auth_secrets_insert_moves_cache_generation AFTER INSERT OR UPDATE OR DELETE "
               "ON auth_secrets DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_cache_generation()")


def _default_zone_and_label() -> None:
    op.execute("INSERT INTO kind (name) VALUES ('Tag_Management_Plane'), ('Tag_Decoy') ON CONFLICT (name) DO NOTHING")
    exists = "EXISTS (SELECT 1 FROM asset_group_tags WHERE name = 'Management Plane' AND deleted_at IS NULL)"
    op.execute(f"UPDATE asset_group_tags SET position = position + 1 WHERE type = 1 AND position >= 2 AND NOT {exists}")
    op.execute(
        "INSERT INTO asset_group_tags (type, kind_id, name, description, created_at, created_by, updated_at, "
        "updated_by, position, require_certify, analysis_enabled) SELECT 1, kind.id, 'Management Plane', "
        f"{_quoted(MANAGEMENT_PLANE_DESCRIPTION)}, now(), 'SYSTEM', now(), 'SYSTEM', 2, false, false FROM kind "
        f"WHERE kind.name = 'Tag_Management_Plane' AND NOT {exists}")
    tag = "(SELECT id FROM asset_group_tags WHERE name = 'Management Plane' AND deleted_at IS NULL)"
    for name, description, template_id in MANAGEMENT_PLANE_ROLES:
        cypher = f"MATCH (n:AZRole) \nWHERE n.objectid STARTS WITH '{template_id}@'\nRETURN n;"
        op.execute(
            "WITH selector AS (INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name, description, "
            "is_default, allow_disable, auto_certify, created_at, created_by, updated_at, updated_by) "
            f"SELECT {tag}, {_quoted(name)}, {_quoted(description)}, true, true, 0, now(), 'SYSTEM', now(), 'SYSTEM' "
            f"WHERE NOT EXISTS (SELECT 1 FROM asset_group_tag_selectors WHERE asset_group_tag_id = {tag} "
            f"AND name = {_quoted(name)} AND is_default) RETURNING id) "
            f"INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) SELECT id, 2, {_quoted(cypher)} "
            "FROM selector")
    op.execute(
        "INSERT INTO asset_group_tags (type, kind_id, name, description, created_at, created_by, updated_at, "
        f"updated_by, glyph) SELECT 4, kind.id, 'Decoy', {_quoted(DECOY_DESCRIPTION)}, now(), 'BloodHound', now(), "
        "'BloodHound', 'mask' FROM kind WHERE kind.name = 'Tag_Decoy' "
        "AND NOT EXISTS (SELECT 1 FROM asset_group_tags WHERE type = 4)")


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def downgrade() -> None:
    op.execute("DROP TRIGGER auth_secrets_insert_moves_cache_generation ON auth_secrets")
    op.execute("DELETE FROM asset_group_tags WHERE type = 4 AND name = 'Decoy' AND created_by = 'BloodHound'")
    op.execute("WITH zone AS (DELETE FROM asset_group_tags WHERE name = 'Management Plane' AND created_by = 'SYSTEM' "
               "RETURNING position) UPDATE asset_group_tags SET position = position - 1 "
               "WHERE type = 1 AND position > 2 AND EXISTS (SELECT 1 FROM zone)")
    op.drop_column("auth_tokens", "expires_at")
    op.execute(parameters.delete().where(parameters.c.key == API_TOKEN_EXPIRATION[0]))
    op.execute(feature_flags.delete().where(feature_flags.c.key.in_([flag[0] for flag in NEW_FLAGS])))
    op.execute("DELETE FROM roles WHERE name = 'Auditor'")
    op.execute(f"DELETE FROM permissions WHERE (authority, name) IN ({_pairs(NEW_PERMISSIONS)})")
    op.execute(f"INSERT INTO permissions (authority, name) SELECT * FROM (VALUES {_pairs(GONE_PERMISSIONS)}) AS p "
               "ON CONFLICT DO NOTHING")
