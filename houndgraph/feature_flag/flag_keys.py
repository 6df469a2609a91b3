"""The flag keys code may ask about. Their defaults live in migration 0004, as in the reference."""

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
