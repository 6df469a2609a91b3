"""The one route table. Every route names the permission it needs, so access can be audited here.

`PUBLIC` routes need no authentication; `AUTHENTICATED` routes need a valid session or signature and
nothing more; `CLIENT` routes are for collection clients alone; every other route names a permission of
`auth.permissions.P`. A collection client may call nothing but the `CLIENT` routes. How a row becomes a
route (its guard, audit entry, query slot, replica reads): `houndgraph.routing`.
"""

from __future__ import annotations

from houndgraph.asset_group import endpoints as asset_group_endpoints
from houndgraph.asset_group_tag import endpoints as zone_endpoints
from houndgraph.attack_path import endpoints as attack_path_endpoints
from houndgraph.audit import endpoints as audit_endpoints
from houndgraph.audit.service import AuditAction as A
from houndgraph.auth.permissions import P
from houndgraph.client import endpoints as client_endpoints
from houndgraph.client_job import endpoints as job_endpoints
from houndgraph.collector import endpoints as collector_endpoints
from houndgraph.config import endpoints as config_endpoints
from houndgraph.custom_node import endpoints as custom_node_endpoints
from houndgraph.data_quality import endpoints as data_quality_endpoints
from houndgraph.datapipe import endpoints as datapipe_endpoints
from houndgraph.entity import endpoints as entity_endpoints
from houndgraph.event import endpoints as event_endpoints
from houndgraph.extension import endpoints as extension_endpoints
from houndgraph.feature_flag import endpoints as feature_flag_endpoints
from houndgraph.file_upload import endpoints as file_upload_endpoints
from houndgraph.graph_query import endpoints as graph_query_endpoints
from houndgraph.health import endpoints as health_endpoints
from houndgraph.login import endpoints as login_endpoints
from houndgraph.pathfinding import endpoints as pathfinding_endpoints
from houndgraph.routing import AUTHENTICATED, CLIENT, PUBLIC, ClientOr, Route, graph_reads
from houndgraph.saved_query import endpoints as saved_query_endpoints
from houndgraph.search import endpoints as search_endpoints
from houndgraph.sso import endpoints as sso_endpoints
from houndgraph.token import endpoints as token_endpoints
from houndgraph.user import endpoints as user_endpoints
from houndgraph.version import get_openapi_json, get_openapi_yaml, get_version

ROUTES: list[Route] = [
    Route("GET", "/api/version", get_version, PUBLIC),
    # For load balancers: this process's database and datapipe (no credentials, nothing secret).
    Route("GET", "/api/v2/health", health_endpoints.get_health, PUBLIC),
    Route("GET", "/api/v2/spec", get_openapi_json, PUBLIC),
    Route("GET", "/api/v2/spec/openapi.yaml", get_openapi_yaml, PUBLIC),
    # --- authentication -----------------------------------------------------------------------
    Route("POST", "/api/v2/login", login_endpoints.login, PUBLIC),
    Route("POST", "/api/v2/logout", login_endpoints.logout, AUTHENTICATED),
    Route("GET", "/api/v2/self", login_endpoints.get_self, AUTHENTICATED),
    # --- users, roles and API tokens ----------------------------------------------------------
    Route("GET", "/api/v2/bloodhound-users-minimal", user_endpoints.list_users_minimal,
          P.AUTH_READ_USERS_MINIMAL),
    Route("GET", "/api/v2/bloodhound-users", user_endpoints.list_users, P.AUTH_MANAGE_USERS),
    Route("POST", "/api/v2/bloodhound-users", user_endpoints.create_user, P.AUTH_MANAGE_USERS, audit=A.CREATE_USER),
    Route("GET", "/api/v2/bloodhound-users/{user_id}", user_endpoints.get_user, P.AUTH_MANAGE_USERS),
    Route("PATCH", "/api/v2/bloodhound-users/{user_id}", user_endpoints.update_user, P.AUTH_MANAGE_USERS,
          audit=A.UPDATE_USER),
    Route("DELETE", "/api/v2/bloodhound-users/{user_id}", user_endpoints.delete_user, P.AUTH_MANAGE_USERS,
          audit=A.DELETE_USER),
    # Own secret with AuthManageSelf; someone else's also needs AuthManageUsers (checked in the service).
    Route("PUT", "/api/v2/bloodhound-users/{user_id}/secret", user_endpoints.set_user_secret, P.AUTH_MANAGE_SELF,
          audit=A.UPDATE_USER_SECRET),
    # Sets the expiry of the user's password to the past: a new one is asked for at next login.
    Route("DELETE", "/api/v2/bloodhound-users/{user_id}/secret", user_endpoints.expire_user_secret,
          P.AUTH_MANAGE_USERS, audit=A.EXPIRE_USER_SECRET),
    # Multi-factor authentication: one's own with AuthManageSelf, someone else's with AuthManageUsers (service).
    Route("POST", "/api/v2/bloodhound-users/{user_id}/mfa", login_endpoints.enroll_mfa, P.AUTH_MANAGE_SELF,
          audit=A.ENROLL_MFA),
    Route("DELETE", "/api/v2/bloodhound-users/{user_id}/mfa", login_endpoints.remove_mfa, P.AUTH_MANAGE_SELF,
          audit=A.DISENROLL_MFA),
    Route("GET", "/api/v2/bloodhound-users/{user_id}/mfa-activation", login_endpoints.get_mfa_status,
          P.AUTH_MANAGE_SELF),
    Route("POST", "/api/v2/bloodhound-users/{user_id}/mfa-activation", login_endpoints.activate_mfa,
          P.AUTH_MANAGE_SELF, audit=A.ACTIVATE_MFA),
    Route("GET", "/api/v2/accept-eula", user_endpoints.accept_eula, AUTHENTICATED, status_code=202,
          audit=A.ACCEPT_EULA),
    Route("GET", "/api/v2/roles", user_endpoints.list_roles, P.AUTH_MANAGE_SELF),
    Route("GET", "/api/v2/roles/{role_id}", user_endpoints.get_role, P.AUTH_MANAGE_SELF),
    Route("GET", "/api/v2/permissions", user_endpoints.list_permissions, P.AUTH_MANAGE_SELF),
    Route("GET", "/api/v2/permissions/{permission_id}", user_endpoints.get_permission, P.AUTH_MANAGE_SELF),
    Route("POST", "/api/v2/tokens", token_endpoints.create_token, P.AUTH_CREATE_TOKEN,
          audit=A.CREATE_AUTH_TOKEN),
    Route("GET", "/api/v2/tokens", token_endpoints.list_tokens, P.AUTH_CREATE_TOKEN),
    Route("DELETE", "/api/v2/tokens/{token_id}", token_endpoints.delete_token, P.AUTH_CREATE_TOKEN,
          audit=A.DELETE_AUTH_TOKEN),
    Route("GET", "/api/v2/audit", audit_endpoints.list_audit_logs, P.AUDIT_LOG_READ),
    # --- configuration and feature flags ------------------------------------------------------
    Route("GET", "/api/v2/config", config_endpoints.list_parameters, P.APP_READ_CONFIG),
    Route("PUT", "/api/v2/config", config_endpoints.update_parameter, P.APP_WRITE_CONFIG,
          audit=A.UPDATE_CONFIGURATION),
    Route("GET", "/api/v2/features", feature_flag_endpoints.list_flags, P.APP_READ_CONFIG),
    Route("PUT", "/api/v2/features/{feature_id}/toggle", feature_flag_endpoints.toggle_flag, P.APP_WRITE_CONFIG,
          audit=A.TOGGLE_FEATURE_FLAG),
    Route("GET", "/api/v2/dog-tags", feature_flag_endpoints.get_dog_tags, AUTHENTICATED),
    # --- file upload, datapipe, analysis requests, clearing the database ----------------------
    Route("GET", "/api/v2/file-upload", file_upload_endpoints.list_upload_jobs, AUTHENTICATED),
    Route("GET", "/api/v2/file-upload/accepted-types", file_upload_endpoints.list_accepted_types, AUTHENTICATED),
    # Before "/{file_upload_job_id}", which would otherwise take "start" for a (malformed) id.
    Route("POST", "/api/v2/file-upload/start", file_upload_endpoints.start_upload_job, P.GRAPH_DB_INGEST,
          status_code=201),
    Route("POST", "/api/v2/file-upload/{file_upload_job_id}", file_upload_endpoints.upload_file,
          P.GRAPH_DB_INGEST, status_code=202, streams_body=True),
    Route("POST", "/api/v2/file-upload/{file_upload_job_id}/end", file_upload_endpoints.end_upload_job,
          P.GRAPH_DB_INGEST),
    Route("GET", "/api/v2/file-upload/{file_upload_job_id}/completed-tasks",
          file_upload_endpoints.list_completed_tasks, AUTHENTICATED),
    Route("GET", "/api/v2/datapipe/status", datapipe_endpoints.get_datapipe_status, AUTHENTICATED),
    Route("PUT", "/api/v2/analysis", datapipe_endpoints.request_analysis, P.GRAPH_DB_WRITE, status_code=202,
          audit=A.REQUEST_ANALYSIS),
    Route("GET", "/api/v2/analysis", datapipe_endpoints.get_analysis_request, P.GRAPH_DB_READ),
    # Where the reference's route table (before DELETE /api/v2/analysis) serves the same answer.
    Route("GET", "/api/v2/analysis/status", datapipe_endpoints.get_analysis_request, P.GRAPH_DB_READ),
    Route("DELETE", "/api/v2/analysis", datapipe_endpoints.cancel_analysis_request, P.GRAPH_DB_WRITE, status_code=202,
          audit=A.CANCEL_ANALYSIS),
    # Only the Administrator holds db:Wipe.
    Route("POST", "/api/v2/clear-database", datapipe_endpoints.clear_database, P.DB_WIPE,
          status_code=204, malformed_json_message="JSON malformed.", audit=A.DELETE_GRAPH_DATA),
    # --- collection clients, their schedules (events) and jobs --------------------------------
    # The clients' own routes, signed with a client token, before "/{client_id}" would take their names.
    Route("PUT", "/api/v2/clients/update", client_endpoints.check_in, CLIENT),
    Route("POST", "/api/v2/clients/error", client_endpoints.report_error, CLIENT, status_code=202),
    Route("GET", "/api/v2/jobs/available", job_endpoints.list_available_jobs, CLIENT),
    Route("GET", "/api/v2/jobs/current", job_endpoints.get_current_job, CLIENT),
    Route("POST", "/api/v2/jobs/start", job_endpoints.start_job, CLIENT),
    Route("POST", "/api/v2/jobs/end", job_endpoints.end_job, CLIENT),
    # A collector's file into its running job; from a user holding GraphDBIngest, the legacy one-shot ingest
    # (one file, a job of its own, started, given the file and ended).
    Route("POST", "/api/v2/ingest", job_endpoints.ingest, ClientOr(P.GRAPH_DB_INGEST), status_code=202,
          streams_body=True),
    Route("GET", "/api/v2/clients", client_endpoints.list_clients, P.CLIENTS_READ),
    Route("POST", "/api/v2/clients", client_endpoints.create_client, P.CLIENTS_MANAGE, audit=A.CREATE_CLIENT),
    Route("GET", "/api/v2/clients/{client_id}", client_endpoints.get_client, P.CLIENTS_READ),
    Route("PUT", "/api/v2/clients/{client_id}", client_endpoints.update_client, P.CLIENTS_MANAGE,
          audit=A.UPDATE_CLIENT),
    Route("DELETE", "/api/v2/clients/{client_id}", client_endpoints.delete_client, P.CLIENTS_MANAGE,
          audit=A.DELETE_CLIENT),
    Route("PUT", "/api/v2/clients/{client_id}/token", client_endpoints.replace_client_token, P.CLIENTS_MANAGE,
          audit=A.REPLACE_CLIENT_TOKEN),
    Route("GET", "/api/v2/clients/{client_id}/completed-jobs", client_endpoints.list_completed_jobs,
          P.CLIENTS_READ),
    Route("GET", "/api/v2/clients/{client_id}/completed-tasks", client_endpoints.list_completed_jobs,
          P.CLIENTS_READ, deprecated=True),
    Route("POST", "/api/v2/clients/{client_id}/jobs", client_endpoints.create_client_job, P.CLIENTS_TASKING,
          audit=A.CREATE_CLIENT_JOB),
    Route("POST", "/api/v2/clients/{client_id}/tasks", client_endpoints.create_client_job, P.CLIENTS_TASKING,
          deprecated=True, audit=A.CREATE_CLIENT_JOB),
    Route("GET", "/api/v2/events", event_endpoints.list_events, P.CLIENTS_READ),
    Route("POST", "/api/v2/events", event_endpoints.create_event, P.CLIENTS_MANAGE, audit=A.CREATE_CLIENT_SCHEDULE),
    Route("GET", "/api/v2/events/{event_id}", event_endpoints.get_event, P.CLIENTS_READ),
    Route("PUT", "/api/v2/events/{event_id}", event_endpoints.update_event, P.CLIENTS_MANAGE,
          audit=A.UPDATE_CLIENT_SCHEDULE),
    Route("DELETE", "/api/v2/events/{event_id}", event_endpoints.delete_event, P.CLIENTS_MANAGE,
          audit=A.DELETE_CLIENT_SCHEDULE),
    Route("GET", "/api/v2/jobs", job_endpoints.list_jobs, P.CLIENTS_READ),
    Route("GET", "/api/v2/jobs/finished", job_endpoints.list_finished_jobs, P.CLIENTS_READ),
    Route("GET", "/api/v2/jobs/{job_id}", job_endpoints.get_job, P.CLIENTS_READ),
    Route("PUT", "/api/v2/jobs/{job_id}/cancel", job_endpoints.cancel_job, P.CLIENTS_TASKING,
          audit=A.CANCEL_CLIENT_JOB),
    Route("GET", "/api/v2/jobs/{job_id}/log", job_endpoints.get_job_log, P.CLIENTS_READ),
    # Collector releases an operator placed in the data dir, for download.
    Route("GET", "/api/v2/collectors/{collector_type}", collector_endpoints.list_collectors, AUTHENTICATED),
    Route("GET", "/api/v2/collectors/{collector_type}/{release_tag}", collector_endpoints.download_collector,
          AUTHENTICATED),
    Route("GET", "/api/v2/collectors/{collector_type}/{release_tag}/checksum", collector_endpoints.collector_checksum,
          AUTHENTICATED),
    # --- graph queries ------------------------------------------------------------------------
    # A query with an updating clause also needs GraphDBMutate (checked in the service).
    # The read replica may run a query without an updating clause.
    Route("POST", "/api/v2/graphs/cypher", graph_query_endpoints.run_cypher_query, P.GRAPH_DB_READ,
          malformed_json_message="JSON malformed.", graph_query=True, reads_graph=graph_query_endpoints.reads_only),
    # The Cypher editor's completion, and the ids clear-database deletes by.
    Route("GET", "/api/v2/graphs/kinds", graph_query_endpoints.list_kinds, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/graphs/source-kinds", graph_query_endpoints.list_source_kinds, P.GRAPH_DB_READ),
    # --- graph views: path finding, entity info, search ---------------------------------------
    Route("PATCH", "/api/v2/domains/{object_id}", entity_endpoints.update_domain, P.GRAPH_DB_WRITE),
    # Reads of the graph and of what analysis derived from it, writing nothing: the read replica may serve them.
    *graph_reads(
        Route("GET", "/api/v2/graphs/shortest-path", pathfinding_endpoints.get_shortest_path, P.GRAPH_DB_READ,
              graph_search=True),
        Route("GET", "/api/v2/pathfinding", pathfinding_endpoints.get_pathfinding, P.GRAPH_DB_READ, deprecated=True,
              graph_search=True),
        Route("GET", "/api/v2/graphs/relay-targets", pathfinding_endpoints.get_relay_targets, P.GRAPH_DB_READ,
              graph_search=True),
        Route("GET", "/api/v2/search", search_endpoints.search, P.GRAPH_DB_READ, graph_search=True),
        Route("GET", "/api/v2/graph-search", search_endpoints.graph_search, P.GRAPH_DB_READ, graph_search=True),
        Route("GET", "/api/v2/graphs/edge-composition", pathfinding_endpoints.get_edge_composition, P.GRAPH_DB_READ,
              graph_search=True),
        Route("GET", "/api/v2/graphs/acl-inheritance", pathfinding_endpoints.get_acl_inheritance, P.GRAPH_DB_READ,
              graph_search=True),
        Route("GET", "/api/v2/available-domains", search_endpoints.get_available_domains, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/meta/{object_id}", entity_endpoints.get_meta_entity, P.GRAPH_DB_READ),
        # By the ids the graph gives nodes and edges (Cypher answers carry them).
        Route("GET", "/api/v2/nodes/{node_id}", entity_endpoints.get_node_by_graph_id, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/relationships/{relationship_id}", entity_endpoints.get_relationship_by_graph_id,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/meta-nodes/{domain_id}", entity_endpoints.get_tier_zero_combo_node, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/meta-trees/{domain_id}", entity_endpoints.get_tier_zero_combo_tree, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/azure/{entity_type}", entity_endpoints.get_azure_entity, P.GRAPH_DB_READ),
        # Every AD entity panel and its related lists (entity/ad_panels.py), all read-only.
        *(Route("GET", path, handler, P.GRAPH_DB_READ) for path, handler in entity_endpoints.ROUTES),
        # --- analysis results: data quality, completeness -----------------------------------------
        Route("GET", "/api/v2/platform/{platform_id}/data-quality-stats", data_quality_endpoints.list_platform_stats,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/ad-domains/{domain_id}/data-quality-stats", data_quality_endpoints.list_domain_stats,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/azure-tenants/{tenant_id}/data-quality-stats", data_quality_endpoints.list_tenant_stats,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/completeness", data_quality_endpoints.get_completeness, P.GRAPH_DB_READ),
        # --- attack-path findings and posture (computed at the end of every analysis) --------------
        Route("GET", "/api/v2/attack-path-types", attack_path_endpoints.list_attack_path_types, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/domains/{domain_id}/attack-path-findings", attack_path_endpoints.list_domain_findings,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/domains/{domain_id}/details", attack_path_endpoints.list_domain_finding_details,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/domains/{domain_id}/available-types", attack_path_endpoints.list_available_types,
              P.GRAPH_DB_READ),
        Route("GET", "/api/v2/domains/{domain_id}/sparkline", attack_path_endpoints.list_sparkline, P.GRAPH_DB_READ),
        Route("GET", "/api/v2/posture-stats", attack_path_endpoints.list_posture_stats, P.GRAPH_DB_READ),
    ),
    # A refresh is an analysis request; accepting a risk is the reference's risk management permission.
    Route("GET", "/api/v2/attack-paths/report", attack_path_endpoints.download_report, P.GRAPH_DB_READ),
    Route("PUT", "/api/v2/attack-paths", attack_path_endpoints.request_attack_paths, P.GRAPH_DB_WRITE,
          status_code=202),
    Route("PUT", "/api/v2/attack-paths/{attack_path_id}/acceptance", attack_path_endpoints.update_acceptance,
          P.RISKS_MANAGE, audit=A.UPDATE_RISK_ACCEPTANCE),
    # --- saved queries, SSO providers, asset group tags ---------------------------------------
    # `export` and `import` before `{saved_query_id}`, which would otherwise take them as ids.
    Route("GET", "/api/v2/saved-queries/export", saved_query_endpoints.export_saved_queries, P.SAVED_QUERIES_READ),
    Route("POST", "/api/v2/saved-queries/import", saved_query_endpoints.import_saved_queries, P.SAVED_QUERIES_WRITE,
          status_code=201),
    Route("GET", "/api/v2/saved-queries", saved_query_endpoints.list_saved_queries, P.SAVED_QUERIES_READ),
    Route("POST", "/api/v2/saved-queries", saved_query_endpoints.create_saved_query, P.SAVED_QUERIES_WRITE,
          status_code=201),
    Route("GET", "/api/v2/saved-queries/{saved_query_id}", saved_query_endpoints.get_saved_query,
          P.SAVED_QUERIES_READ),
    Route("PUT", "/api/v2/saved-queries/{saved_query_id}", saved_query_endpoints.update_saved_query,
          P.SAVED_QUERIES_WRITE),
    Route("DELETE", "/api/v2/saved-queries/{saved_query_id}", saved_query_endpoints.delete_saved_query,
          P.SAVED_QUERIES_WRITE, status_code=204),
    Route("GET", "/api/v2/saved-queries/{saved_query_id}/export", saved_query_endpoints.export_saved_query,
          P.SAVED_QUERIES_READ),
    Route("GET", "/api/v2/saved-queries/{saved_query_id}/permissions", saved_query_endpoints.get_permissions,
          P.SAVED_QUERIES_READ),
    Route("PUT", "/api/v2/saved-queries/{saved_query_id}/permissions", saved_query_endpoints.share_saved_query,
          P.SAVED_QUERIES_WRITE, status_code=201),
    Route("DELETE", "/api/v2/saved-queries/{saved_query_id}/permissions", saved_query_endpoints.unshare_saved_query,
          P.SAVED_QUERIES_WRITE, status_code=204),
    # --- privilege zones (asset group tags): reads GraphDBRead, changes GraphDBWrite -----------
    # The fixed paths before "/{asset_group_tag_id}", which would otherwise take them for (malformed) ids.
    Route("POST", "/api/v2/asset-group-tags/preview-selectors", zone_endpoints.preview_selectors, P.GRAPH_DB_READ),
    Route("POST", "/api/v2/asset-group-tags/search", zone_endpoints.search, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-group-tags/certifications", zone_endpoints.list_certifications, P.GRAPH_DB_READ),
    Route("POST", "/api/v2/asset-group-tags/certifications", zone_endpoints.certify, P.GRAPH_DB_WRITE,
          audit=A.CERTIFY_ASSET_GROUP_TAG_MEMBERS),
    Route("GET", "/api/v2/asset-group-tags-history", zone_endpoints.list_history, P.GRAPH_DB_READ),
    Route("POST", "/api/v2/asset-group-tags-history", zone_endpoints.search_history, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-group-tags", zone_endpoints.list_tags, P.GRAPH_DB_READ),
    Route("POST", "/api/v2/asset-group-tags", zone_endpoints.create_tag, P.GRAPH_DB_WRITE, status_code=201,
          audit=A.CREATE_ASSET_GROUP_TAG),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}", zone_endpoints.get_tag, P.GRAPH_DB_READ),
    Route("PATCH", "/api/v2/asset-group-tags/{asset_group_tag_id}", zone_endpoints.update_tag, P.GRAPH_DB_WRITE,
          audit=A.UPDATE_ASSET_GROUP_TAG),
    Route("DELETE", "/api/v2/asset-group-tags/{asset_group_tag_id}", zone_endpoints.delete_tag, P.GRAPH_DB_WRITE,
          status_code=204, audit=A.DELETE_ASSET_GROUP_TAG),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors", zone_endpoints.list_selectors,
          P.GRAPH_DB_READ),
    Route("POST", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors", zone_endpoints.create_selector,
          P.GRAPH_DB_WRITE, status_code=201, audit=A.CREATE_ASSET_GROUP_TAG_SELECTOR),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}",
          zone_endpoints.get_selector, P.GRAPH_DB_READ),
    Route("PATCH", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}",
          zone_endpoints.update_selector, P.GRAPH_DB_WRITE, audit=A.UPDATE_ASSET_GROUP_TAG_SELECTOR),
    Route("DELETE", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}",
          zone_endpoints.delete_selector, P.GRAPH_DB_WRITE, status_code=204,
          audit=A.DELETE_ASSET_GROUP_TAG_SELECTOR),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}/members",
          zone_endpoints.list_selector_members, P.GRAPH_DB_READ),
    Route("GET",
          "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}/members/counts",
          zone_endpoints.selector_member_counts, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/members", zone_endpoints.list_members,
          P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/members/counts", zone_endpoints.member_counts,
          P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-group-tags/{asset_group_tag_id}/members/{asset_group_member_id}",
          zone_endpoints.get_member, P.GRAPH_DB_READ),
    # The legacy asset groups: a view over Tier Zero and Owned.
    Route("GET", "/api/v2/asset-groups", asset_group_endpoints.list_asset_groups, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-groups/{asset_group_id}", asset_group_endpoints.get_asset_group, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-groups/{asset_group_id}/members", asset_group_endpoints.list_asset_group_members,
          P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-groups/{asset_group_id}/members/counts",
          asset_group_endpoints.asset_group_member_counts, P.GRAPH_DB_READ),
    Route("PUT", "/api/v2/asset-groups/{asset_group_id}/selectors", asset_group_endpoints.update_asset_group_selectors,
          P.GRAPH_DB_WRITE, status_code=201, audit=A.UPDATE_ASSET_GROUP_SELECTORS),
    Route("GET", "/api/v2/asset-groups/{asset_group_id}/collections",
          asset_group_endpoints.list_asset_group_collections, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/asset-groups/{asset_group_id}/custom-selectors",
          asset_group_endpoints.asset_group_custom_selectors, P.GRAPH_DB_READ),
    # --- custom node kinds (display settings of OpenGraph kinds) -------------------------------
    Route("GET", "/api/v2/custom-nodes", custom_node_endpoints.list_custom_nodes, P.GRAPH_DB_READ),
    Route("POST", "/api/v2/custom-nodes", custom_node_endpoints.create_custom_nodes, P.GRAPH_DB_WRITE,
          status_code=201, audit=A.CREATE_CUSTOM_NODE_KIND),
    Route("GET", "/api/v2/custom-nodes/{kind_name}", custom_node_endpoints.get_custom_node, P.GRAPH_DB_READ),
    Route("PUT", "/api/v2/custom-nodes/{kind_name}", custom_node_endpoints.update_custom_node, P.GRAPH_DB_WRITE,
          audit=A.UPDATE_CUSTOM_NODE_KIND),
    Route("DELETE", "/api/v2/custom-nodes/{kind_name}", custom_node_endpoints.delete_custom_node, P.GRAPH_DB_WRITE,
          audit=A.DELETE_CUSTOM_NODE_KIND),
    # --- OpenGraph schema extensions (flag opengraph_extension_management; 404 while it is off) -------------
    # Any user may list them; uploading and deleting one takes the Administrator role (checked in the service,
    # with the reference's 403 messages).
    Route("PUT", "/api/v2/extensions", extension_endpoints.upload_extension, AUTHENTICATED, status_code=201),
    Route("GET", "/api/v2/extensions", extension_endpoints.list_extensions, AUTHENTICATED),
    Route("DELETE", "/api/v2/extensions/{extension_id}", extension_endpoints.delete_extension, AUTHENTICATED,
          status_code=204),
    Route("GET", "/api/v2/graph-schema/edges", extension_endpoints.list_edge_kinds, P.GRAPH_DB_READ),
    # SAML provider forms stream in through a 10 MiB cap of their own (an oversized metadata file is a 400).
    Route("POST", "/api/v2/sso-providers/saml", sso_endpoints.create_saml_provider, P.AUTH_MANAGE_PROVIDERS,
          streams_body=True, audit=A.CREATE_SSO_PROVIDER),
    Route("POST", "/api/v2/saml/providers", sso_endpoints.create_saml_provider_deprecated, P.AUTH_MANAGE_PROVIDERS,
          deprecated=True, streams_body=True, audit=A.CREATE_SSO_PROVIDER),
    Route("POST", "/api/v2/sso-providers/oidc", sso_endpoints.create_oidc_provider, P.AUTH_MANAGE_PROVIDERS,
          status_code=201, audit=A.CREATE_SSO_PROVIDER),
    Route("GET", "/api/v2/saml", sso_endpoints.list_saml_providers, P.AUTH_MANAGE_PROVIDERS, deprecated=True),
    # PUBLIC: the login page lists these before anyone is signed in.
    Route("GET", "/api/v2/saml/sso", sso_endpoints.list_saml_sign_on_endpoints, PUBLIC, deprecated=True),
    Route("GET", "/api/v2/saml/providers/{saml_provider_id}", sso_endpoints.get_saml_provider,
          P.AUTH_MANAGE_PROVIDERS, deprecated=True),
    Route("DELETE", "/api/v2/saml/providers/{saml_provider_id}", sso_endpoints.delete_saml_provider,
          P.AUTH_MANAGE_PROVIDERS, deprecated=True, audit=A.DELETE_SSO_PROVIDER),
    # PUBLIC as in the reference: the login page lists the providers before anyone has signed in (nothing
    # secret in it: names, slugs, sign-in URLs, the identity providers' public issuer and client ids).
    Route("GET", "/api/v2/sso-providers", sso_endpoints.list_providers, PUBLIC),
    Route("GET", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.get_provider, AUTHENTICATED),
    Route("PATCH", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.update_provider, P.AUTH_MANAGE_PROVIDERS,
          streams_body=True, audit=A.UPDATE_SSO_PROVIDER),
    Route("GET", "/api/v2/sso-providers/{sso_provider_id}/signing-certificate", sso_endpoints.signing_certificate,
          P.AUTH_MANAGE_PROVIDERS),
    Route("DELETE", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.delete_provider, P.AUTH_MANAGE_PROVIDERS,
          audit=A.DELETE_SSO_PROVIDER),
    # PUBLIC like the reference's SSO login flow: an identity provider fetches it without credentials.
    Route("GET", "/api/v2/sso/{slug}/metadata", sso_endpoints.service_provider_metadata_xml, PUBLIC),
    # The SAML sign-in: the browser is sent to the identity provider, which posts the signed answer back.
    Route("GET", "/api/v2/sso/{slug}/login", sso_endpoints.sso_login, PUBLIC),
    Route("POST", "/api/v2/sso/{slug}/callback", sso_endpoints.saml_callback, PUBLIC, status_code=302),
    Route("GET", "/api/v2/sso/{slug}/callback", sso_endpoints.oidc_callback, PUBLIC, status_code=302),
    Route("GET", "/api/v2/login/saml/{slug}", sso_endpoints.legacy_saml_login, PUBLIC, status_code=302,
          deprecated=True),
    Route("GET", "/api/v1/login/saml/{slug}", sso_endpoints.legacy_saml_login, PUBLIC, status_code=302,
          deprecated=True),
    Route("POST", "/api/v1/login/saml/{slug}/acs", sso_endpoints.legacy_saml_acs, PUBLIC, status_code=307,
          deprecated=True),
]
