"""Every flag key of the reference up to BloodHound 9.8. Their defaults live in migrations 0004 and 0029, as in the
reference."""

from __future__ import annotations

from enum import StrEnum


class FeatureFlagKey(StrEnum):
    BUTTERFLY_ANALYSIS = "butterfly_analysis"
    ENABLE_SAML_SSO = "enable_saml_sso"
    SCOPE_COLLECTION_BY_OU = "scope_collection_by_ou"
    AZURE_SUPPORT = "azure_support"
    ENTITY_PANEL_CACHE = "entity_panel_cache"
    ADCS = "adcs"
    CLEAR_GRAPH_DATA = "clear_graph_data"
    RISK_EXPOSURE_NEW_CALCULATION = "risk_exposure_new_calculation"
    FEDRAMP_EULA = "fedramp_eula"
    DARK_MODE = "dark_mode"
    AUTO_TAG_T0_PARENT_OBJECTS = "auto_tag_t0_parent_objects"
    OIDC_SUPPORT = "oidc_support"
    NTLM_POST_PROCESSING = "ntlm_post_processing"
    TIER_MANAGEMENT_ENGINE = "tier_management_engine"
    CHANGELOG = "changelog"
    ENVIRONMENT_TARGETED_ACCESS_CONTROL = "environment_targeted_access_control"
    OPENGRAPH_SEARCH = "opengraph_search"
    OPENGRAPH_FINDINGS = "opengraph_findings"
    CLIENT_BEARER_AUTH = "client_bearer_auth"
    OPENGRAPH_EXTENSION_MANAGEMENT = "opengraph_extension_management"
    OPEN_GRAPH_PHASE_2 = "open_graph_phase_2"
    FINISHED_JOBS_LOG_V2 = "finished_jobs_log_v2"
    SCHEDULED_ANALYSIS_CONFIGURATION = "scheduled_analysis_configuration"
    OPENHOUND_SUPPORT = "openhound_support"
    API_KEY_EXPIRATION_SUPPORT = "api_key_expiration_support"
    FINDINGS_TABLE = "findings_table"
    COLLECTOR_SUPPORT_BUNDLE = "collector_support_bundle"
    ALERTS = "alerts"
    OPENGRAPH_ENTITY_PANEL = "opengraph_entity_panel"
    USE_RAW_OBJECT_ID = "use_raw_object_id"
    OPENGRAPH_DATA_QUALITY = "opengraph_data_quality"
    ARTIFACT_EXPIRATION_CLEANUP = "artifact_expiration_cleanup"
    ENTRA_DOMAIN_SERVICES = "entra_domain_services"
    MANAGED_OPENHOUND_COLLECTION = "managed_openhound_collection"
