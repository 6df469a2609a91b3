"""configuration parameters and feature flags with their defaults (issue #2)

Revision ID: 0004
Revises: 0003

A frozen copy of the catalogue at this revision: later changes to `houndgraph.config.parameters` need
their own migration. Existing rows are kept (an operator's value wins over a default).
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

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

PARAMETERS = [
    ("auth.password_expiration_window", "Local Auth Password Expiry Window",
     "This configuration parameter sets the local auth password expiry window for users that have valid auth secrets. Values for this configuration must follow the duration specification of ISO-8601.",
     {"duration": "P90D"}),
    ("neo4j.configuration", "Neo4j Configuration Parameters",
     "This configuration parameter sets the batch write size and the write flush size of graph writes.",
     {"write_flush_size": 100000, "batch_write_size": 20000}),
    ("analysis.citrix_rdp_support", "Citrix RDP Support",
     "This configuration parameter toggles Citrix support during post-processing. When enabled, computers identified with a 'Direct Access Users' local group will assume that Citrix is installed and CanRDP edges will require membership of both 'Direct Access Users' and 'Remote Desktop Users' local groups on the computer.",
     {"enabled": False}),
    ("prune.ttl", "Prune Retention TTL Configuration Parameters",
     "This configuration parameter sets the retention TTLs during analysis pruning.",
     {"base_ttl": "P7D", "has_session_edge_ttl": "P3D"}),
    ("analysis.reconciliation", "Reconciliation",
     "This configuration parameter enables / disables reconciliation during analysis.",
     {"enabled": True}),
    ("analysis.scheduled", "Scheduled Analysis",
     "This configuration parameter allows setting a schedule for analysis. When enabled, analysis will only run when the scheduled time arrives. The schedule is an RFC 5545 recurrence rule.",
     {"enabled": False, "rrule": ""}),
    ("auth.session_ttl_hours", "Session TTL Hours",
     "This configuration parameter sets the number of hours a new login session stays valid.",
     {"hours": 8}),
    ("http.trusted_proxies", "Trusted Proxies",
     "This configuration parameter sets the number of trusted reverse proxies in front of the service.",
     {"trusted_proxies": 0}),
    ("eula.custom_text", "EULA Custom Text",
     "This configuration parameter sets custom text for the end user license agreement.",
     {"custom_text": ""}),
    ("analysis.tiering", "Multi-Tier Analysis Configuration",
     "This configuration parameter determines the limits of tiering with respect to analysis.",
     {"tier_limit": 1, "label_limit": 0, "multi_tier_analysis_enabled": False}),
    ("pipeline.updated_stale_client", "Updated Stale Client",
     "This configuration parameter records whether stale collection clients have been updated.",
     {"enabled": False}),
    ("analysis.retain_ingest_files", "Retain Ingest Files",
     "This configuration parameter determines whether uploaded files are kept after they are ingested.",
     {"enabled": False}),
    ("analysis.tagging", "Tagging Configuration",
     "This configuration parameter sets the worker limits of privilege zone tagging.",
     {"dawgs_worker_limit": 2, "expansion_worker_limit": 3, "selector_worker_limit": 7}),
    ("api.timeout_limit", "API Timeout Limit",
     "This configuration parameter determines whether the request deadline set by `Prefer: wait` is enforced.",
     {"enabled": True}),
    ("auth.api_tokens", "API Tokens",
     "This configuration parameter enables / disables the creation and use of API tokens.",
     {"enabled": True}),
    ("auth.environment_targeted_access_control", "Environment Targeted Access Control",
     "This configuration parameter enables / disables restricting users to selected environments.",
     {"enabled": False}),
]

# (key, name, description, enabled, user_updatable)
FEATURE_FLAGS = [
    ("butterfly_analysis", "Enhanced Asset Inbound-Outbound Exposure Analysis",
     "Enables more extensive analysis of attack path findings that allows BloodHound to help the user prioritize remediation of the most exposed assets.",
     False, False),
    ("enable_saml_sso", "SAML Single Sign-On Support",
     "Enables SAML single sign-on for BloodHound Enterprise users.", True, False),
    ("scope_collection_by_ou", "Enable SharpHound OU Scoped Collections",
     "This flag enables OU scoping of SharpHound collections.", True, False),
    ("azure_support", "Enable Azure Support",
     "Enables Azure support.", True, False),
    ("entity_panel_cache", "Enable application level caching",
     "Enables the use of application level caching for entity panel queries.", True, False),
    ("adcs", "Enable collection and processing of Active Directory Certificate Services Data",
     "Enables the ability to collect, analyze, and explore Active Directory Certificate Services data and previews new attack paths.",
     True, False),
    ("clear_graph_data", "Clear Graph Data",
     "Enables the ability to delete all nodes and edges from the graph database.", True, False),
    ("risk_exposure_new_calculation", "Use new tier zero risk exposure calculation",
     "Enables the use of new tier zero risk exposure metatree metrics.", False, False),
    ("fedramp_eula", "FedRAMP EULA",
     "Enables the display of the FedRAMP end user license agreement.", False, False),
    ("dark_mode", "Dark Mode",
     "Allows users to enable or disable dark mode via a toggle in the settings menu.", False, True),
    ("auto_tag_t0_parent_objects", "Automatically add parent OUs and containers of Tier Zero AD objects to Tier Zero",
     "Parent OUs and containers of Tier Zero AD objects are automatically added to Tier Zero during analysis. Containers are only added if they have a Tier Zero child object with ACL inheritance enabled.",
     True, True),
    ("oidc_support", "OIDC Support",
     "Enables OpenID Connect authentication support.", True, False),
    ("ntlm_post_processing", "NTLM Post Processing Support",
     "Enables the post processing of NTLM relay edges (CoerceAndRelayNTLMTo*).", True, False),
    ("tier_management_engine", "Tier Management Engine",
     "Updates the managed assets selector engine (privilege zones).", True, False),
    ("changelog", "Changelog",
     "Records the changes of graph data between ingests.", False, False),
    ("environment_targeted_access_control", "Environment Targeted Access Control",
     "Enables the ability to restrict users' access to specific environments.", False, False),
    ("opengraph_search", "OpenGraph Search",
     "Enables searching for nodes and edges of OpenGraph (generic) kinds.", False, True),
    ("opengraph_findings", "OpenGraph Findings",
     "Enables findings over OpenGraph (generic) data.", False, False),
    ("client_bearer_auth", "Client Bearer Authentication",
     "Enables bearer token authentication for collection clients.", False, False),
    ("opengraph_extension_management", "OpenGraph Extension Management",
     "Enables the management of OpenGraph schema extensions.", False, False),
]


def upgrade() -> None:
    op.execute(postgresql.insert(parameters).values([
        {"key": key, "name": name, "description": description, "value": value}
        for key, name, description, value in PARAMETERS
    ]).on_conflict_do_nothing(index_elements=["key"]))
    op.execute(postgresql.insert(feature_flags).values([
        {"key": key, "name": name, "description": description, "enabled": enabled, "user_updatable": updatable}
        for key, name, description, enabled, updatable in FEATURE_FLAGS
    ]).on_conflict_do_nothing(index_elements=["key"]))


def downgrade() -> None:
    op.execute(feature_flags.delete().where(feature_flags.c.key.in_([flag[0] for flag in FEATURE_FLAGS])))
    op.execute(parameters.delete().where(parameters.c.key.in_([parameter[0] for parameter in PARAMETERS])))
