"""The one route table. Every route names the permission it needs, so access can be audited here.

`PUBLIC` routes need no authentication; `AUTHENTICATED` routes need a valid session or signature and
nothing more; every other route names a permission of `auth.permissions.P`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from fastapi import APIRouter, Depends
from fastapi.routing import APIRoute

from houndgraph.audit import endpoints as audit_endpoints
from houndgraph.audit.dependencies import audit_trail
from houndgraph.audit.service import AuditAction as A
from houndgraph.auth import endpoints as auth_endpoints
from houndgraph.auth.dependencies import permission_guard
from houndgraph.auth.permissions import P
from houndgraph.config import endpoints as config_endpoints
from houndgraph.data_quality import endpoints as data_quality_endpoints
from houndgraph.datapipe import endpoints as datapipe_endpoints
from houndgraph.entity import endpoints as entity_endpoints
from houndgraph.feature_flag import endpoints as feature_flag_endpoints
from houndgraph.file_upload import endpoints as file_upload_endpoints
from houndgraph.graph_query import endpoints as graph_query_endpoints
from houndgraph.pathfinding import endpoints as pathfinding_endpoints
from houndgraph.saved_query import endpoints as saved_query_endpoints
from houndgraph.search import endpoints as search_endpoints
from houndgraph.sso import endpoints as sso_endpoints
from houndgraph.token import endpoints as token_endpoints
from houndgraph.user import endpoints as user_endpoints
from houndgraph.version import get_openapi_yaml, get_version


class _Public:
    def __repr__(self) -> str:
        return "PUBLIC"


PUBLIC: Final = _Public()
AUTHENTICATED: Final = None


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    endpoint: Callable[..., Any]
    permission: P | _Public | None
    status_code: int = 200
    deprecated: bool = False
    # The handler reads the raw body as a stream (uploads): signature checks spool it to disk.
    streams_body: bool = False
    # The reference answers some routes' undecodable JSON with their own message.
    malformed_json_message: str | None = None
    # Security-relevant routes write an audit entry with their outcome.
    audit: A | None = None


class HoundRoute(APIRoute):
    """An APIRoute that remembers what the table said about it."""

    permission: P | _Public | None = AUTHENTICATED
    streams_body: bool = False
    malformed_json_message: str | None = None


ROUTES: list[Route] = [
    Route("GET", "/api/version", get_version, PUBLIC),
    Route("GET", "/api/v2/spec/openapi.yaml", get_openapi_yaml, PUBLIC),
    # --- authentication -----------------------------------------------------------------------
    Route("POST", "/api/v2/login", auth_endpoints.login, PUBLIC),
    Route("POST", "/api/v2/logout", auth_endpoints.logout, AUTHENTICATED),
    Route("GET", "/api/v2/self", auth_endpoints.get_self, AUTHENTICATED),
    # --- users, roles and API tokens ----------------------------------------------------------
    Route("GET", "/api/v2/bloodhound-users-minimal", user_endpoints.list_users_minimal, P.AUTH_READ_USERS),
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
    Route("POST", "/api/v2/bloodhound-users/{user_id}/mfa", user_endpoints.enroll_mfa, P.AUTH_MANAGE_SELF,
          audit=A.ENROLL_MFA),
    Route("DELETE", "/api/v2/bloodhound-users/{user_id}/mfa", user_endpoints.remove_mfa, P.AUTH_MANAGE_SELF,
          audit=A.DISENROLL_MFA),
    Route("GET", "/api/v2/bloodhound-users/{user_id}/mfa-activation", user_endpoints.get_mfa_status,
          P.AUTH_MANAGE_SELF),
    Route("POST", "/api/v2/bloodhound-users/{user_id}/mfa-activation", user_endpoints.activate_mfa,
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
    Route("GET", "/api/v2/audit", audit_endpoints.list_audit_logs, P.AUTH_MANAGE_USERS),
    # --- configuration and feature flags ------------------------------------------------------
    Route("GET", "/api/v2/config", config_endpoints.list_parameters, P.APP_READ_CONFIG),
    Route("PUT", "/api/v2/config", config_endpoints.update_parameter, P.APP_WRITE_CONFIG,
          audit=A.UPDATE_CONFIGURATION),
    Route("GET", "/api/v2/features", feature_flag_endpoints.list_flags, P.APP_READ_CONFIG),
    Route("PUT", "/api/v2/features/{feature_id}/toggle", feature_flag_endpoints.toggle_flag, P.APP_WRITE_CONFIG,
          audit=A.TOGGLE_FEATURE_FLAG),
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
    # The legacy one-shot ingest: one collector file, a job of its own, started, given the file and ended.
    Route("POST", "/api/v2/ingest", file_upload_endpoints.ingest_once, P.GRAPH_DB_INGEST, status_code=202,
          streams_body=True),
    Route("GET", "/api/v2/file-upload/{file_upload_job_id}/completed-tasks",
          file_upload_endpoints.list_completed_tasks, AUTHENTICATED),
    Route("GET", "/api/v2/datapipe/status", datapipe_endpoints.get_datapipe_status, AUTHENTICATED),
    Route("PUT", "/api/v2/analysis", datapipe_endpoints.request_analysis, P.GRAPH_DB_WRITE, status_code=202,
          audit=A.REQUEST_ANALYSIS),
    Route("GET", "/api/v2/analysis", datapipe_endpoints.get_analysis_request, P.GRAPH_DB_READ),
    Route("DELETE", "/api/v2/analysis", datapipe_endpoints.cancel_analysis_request, P.GRAPH_DB_WRITE, status_code=202,
          audit=A.CANCEL_ANALYSIS),
    Route("POST", "/api/v2/clear-database", datapipe_endpoints.clear_database, P.GRAPH_DB_WRITE,
          status_code=204, malformed_json_message="JSON malformed.", audit=A.DELETE_GRAPH_DATA),
    # --- graph queries ------------------------------------------------------------------------
    # A query with an updating clause also needs GraphDBMutate (checked in the service).
    Route("POST", "/api/v2/graphs/cypher", graph_query_endpoints.run_cypher_query, P.GRAPH_DB_READ,
          malformed_json_message="JSON malformed."),
    # --- graph views: path finding, entity info, search ---------------------------------------
    Route("GET", "/api/v2/graphs/shortest-path", pathfinding_endpoints.get_shortest_path, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/pathfinding", pathfinding_endpoints.get_pathfinding, P.GRAPH_DB_READ, deprecated=True),
    Route("GET", "/api/v2/graphs/relay-targets", pathfinding_endpoints.get_relay_targets, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/search", search_endpoints.search, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/graph-search", search_endpoints.graph_search, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/graphs/edge-composition", pathfinding_endpoints.get_edge_composition, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/available-domains", search_endpoints.get_available_domains, P.GRAPH_DB_READ),
    Route("GET", "/api/v2/meta/{object_id}", entity_endpoints.get_meta_entity, P.GRAPH_DB_READ),
    Route("PATCH", "/api/v2/domains/{object_id}", entity_endpoints.update_domain, P.GRAPH_DB_WRITE),
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
          P.SAVED_QUERIES_WRITE),
    Route("DELETE", "/api/v2/saved-queries/{saved_query_id}/permissions", saved_query_endpoints.unshare_saved_query,
          P.SAVED_QUERIES_WRITE),
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
    Route("GET", "/api/v2/sso-providers", sso_endpoints.list_providers, AUTHENTICATED),
    Route("GET", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.get_provider, AUTHENTICATED),
    Route("PATCH", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.update_provider, P.AUTH_MANAGE_PROVIDERS,
          streams_body=True, audit=A.UPDATE_SSO_PROVIDER),
    Route("DELETE", "/api/v2/sso-providers/{sso_provider_id}", sso_endpoints.delete_provider, P.AUTH_MANAGE_PROVIDERS,
          audit=A.DELETE_SSO_PROVIDER),
    # PUBLIC like the reference's SSO login flow: an identity provider fetches it without credentials.
    Route("GET", "/api/v2/sso/{slug}/metadata", sso_endpoints.service_provider_metadata_xml, PUBLIC),
    # The SAML sign-in: the browser is sent to the identity provider, which posts the signed answer back.
    Route("GET", "/api/v2/sso/{slug}/login", sso_endpoints.sso_login, PUBLIC),
    Route("POST", "/api/v2/sso/{slug}/callback", sso_endpoints.saml_callback, PUBLIC),
    Route("GET", "/api/v2/sso/{slug}/callback", sso_endpoints.oidc_callback, PUBLIC),
    Route("GET", "/api/v2/login/saml/{slug}", sso_endpoints.legacy_saml_login, PUBLIC, deprecated=True),
    Route("GET", "/api/v1/login/saml/{slug}", sso_endpoints.legacy_saml_login, PUBLIC, deprecated=True),
    Route("POST", "/api/v1/login/saml/{slug}/acs", sso_endpoints.legacy_saml_acs, PUBLIC, deprecated=True),
]


def register_routes(router: APIRouter, routes: list[Route] = ROUTES) -> None:
    """Add the table's routes to `router` (the app's own: an included router would lose our attributes)."""
    for route in routes:
        dependencies = [] if isinstance(route.permission, _Public) else [Depends(permission_guard(route.permission))]
        if route.audit is not None:
            dependencies.append(Depends(audit_trail(route.audit), scope="function"))
        router.add_api_route(
            route.path, route.endpoint, methods=[route.method], status_code=route.status_code,
            dependencies=dependencies, deprecated=route.deprecated or None, route_class_override=HoundRoute,
        )
        added = router.routes[-1]
        assert isinstance(added, HoundRoute)
        added.permission = route.permission
        added.streams_body = route.streams_body
        added.malformed_json_message = route.malformed_json_message
