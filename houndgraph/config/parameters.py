"""The parameter catalogue: every key, its value schema, its default and whether the API may change it.

Migration 0004 (and 0029, for `auth.api_token_expiration`) seeds the same keys with the same defaults, names
and descriptions (a frozen copy, as migrations must be); `tests/config/test_catalogue.py` checks they agree.
Other domains read values through `config.service`, which falls back to these defaults if a row is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ParameterKey(StrEnum):
    # Settable through PUT /api/v2/config.
    PASSWORD_EXPIRATION_WINDOW = "auth.password_expiration_window"
    NEO4J_CONFIGURATION = "neo4j.configuration"
    CITRIX_RDP_SUPPORT = "analysis.citrix_rdp_support"
    PRUNE_TTL = "prune.ttl"
    RECONCILIATION = "analysis.reconciliation"
    SCHEDULED_ANALYSIS = "analysis.scheduled"
    # Settable only while the `api_key_expiration_support` flag is on.
    API_TOKEN_EXPIRATION = "auth.api_token_expiration"
    # Protected in the reference; settable here because issue #2 requires it (see SESSION_TTL below).
    SESSION_TTL_HOURS = "auth.session_ttl_hours"
    # Protected: listed by GET, never settable through the API.
    TRUSTED_PROXIES = "http.trusted_proxies"
    EULA_CUSTOM_TEXT = "eula.custom_text"
    TIERING = "analysis.tiering"
    UPDATED_STALE_CLIENT = "pipeline.updated_stale_client"
    RETAIN_INGEST_FILES = "analysis.retain_ingest_files"
    TAGGING = "analysis.tagging"
    API_TIMEOUT_LIMIT = "api.timeout_limit"
    API_TOKENS = "auth.api_tokens"
    ENVIRONMENT_TARGETED_ACCESS_CONTROL = "auth.environment_targeted_access_control"


# --- value field types ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Boolean:
    pass


@dataclass(frozen=True, slots=True)
class Integer:
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class Text:
    pass


@dataclass(frozen=True, slots=True)
class Duration:
    """An ISO-8601 duration string such as `P7D`, optionally bounded (bounds are ISO-8601 too)."""

    minimum: str | None = None
    maximum: str | None = None


@dataclass(frozen=True, slots=True)
class RRule:
    """An RFC 5545 recurrence rule; the empty string means "no schedule"."""


FieldType = Boolean | Integer | Text | Duration | RRule


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    key: ParameterKey
    name: str
    description: str
    fields: Mapping[str, FieldType]
    default: Mapping[str, Any]
    user_updatable: bool


# Issue #2 is the contract: an operator changes the lifetime of new sessions with PUT /api/v2/config.
# The reference keeps this key protected; the bounds keep a typo from locking everyone out (0 hours)
# or leaving sessions open for months.
SESSION_TTL_MAX_HOURS = 720

PARAMETERS: dict[ParameterKey, ParameterSpec] = {
    spec.key: spec
    for spec in (
        ParameterSpec(
            ParameterKey.PASSWORD_EXPIRATION_WINDOW, "Local Auth Password Expiry Window",
            "This configuration parameter sets the local auth password expiry window for users that have valid "
            "auth secrets. Values for this configuration must follow the duration specification of ISO-8601.",
            # At most ten years: longer is no expiry in practice, and far enough out overflows the date type.
            {"duration": Duration(minimum="P1D", maximum="P3650D")}, {"duration": "P90D"}, True,
        ),
        ParameterSpec(
            ParameterKey.NEO4J_CONFIGURATION, "Neo4j Configuration Parameters",
            "This configuration parameter sets the batch write size and the write flush size of graph writes.",
            {"write_flush_size": Integer(minimum=1), "batch_write_size": Integer(minimum=1)},
            {"write_flush_size": 100000, "batch_write_size": 20000}, True,
        ),
        ParameterSpec(
            ParameterKey.CITRIX_RDP_SUPPORT, "Citrix RDP Support",
            "This configuration parameter toggles Citrix support during post-processing. When enabled, computers "
            "identified with a 'Direct Access Users' local group will assume that Citrix is installed and CanRDP "
            "edges will require membership of both 'Direct Access Users' and 'Remote Desktop Users' local groups "
            "on the computer.",
            {"enabled": Boolean()}, {"enabled": False}, True,
        ),
        ParameterSpec(
            ParameterKey.PRUNE_TTL, "Prune Retention TTL Configuration Parameters",
            "This configuration parameter sets the retention TTLs during analysis pruning.",
            {"base_ttl": Duration(minimum="P4D", maximum="P30D"),
             "has_session_edge_ttl": Duration(minimum="P2D", maximum="P7D")},
            {"base_ttl": "P7D", "has_session_edge_ttl": "P3D"}, True,
        ),
        ParameterSpec(
            ParameterKey.RECONCILIATION, "Reconciliation",
            "This configuration parameter enables / disables reconciliation during analysis.",
            {"enabled": Boolean()}, {"enabled": True}, True,
        ),
        ParameterSpec(
            ParameterKey.SCHEDULED_ANALYSIS, "Scheduled Analysis",
            "This configuration parameter allows setting a schedule for analysis. When enabled, analysis will only "
            "run when the scheduled time arrives. The schedule is an RFC 5545 recurrence rule.",
            {"enabled": Boolean(), "rrule": RRule()}, {"enabled": False, "rrule": ""}, True,
        ),
        ParameterSpec(
            ParameterKey.API_TOKEN_EXPIRATION, "API Token Expiration",
            "This configuration parameter enables/disables created API tokens to expire after the set number of "
            "days.",
            {"enabled": Boolean(), "expiration_period": Integer(minimum=1, maximum=365)},
            {"enabled": False, "expiration_period": 90}, True,
        ),
        ParameterSpec(
            ParameterKey.SESSION_TTL_HOURS, "Session TTL Hours",
            "This configuration parameter sets the number of hours a new login session stays valid.",
            {"hours": Integer(minimum=1, maximum=SESSION_TTL_MAX_HOURS)}, {"hours": 8}, True,
        ),
        ParameterSpec(
            ParameterKey.TRUSTED_PROXIES, "Trusted Proxies",
            "This configuration parameter sets the number of trusted reverse proxies in front of the service.",
            {"trusted_proxies": Integer(minimum=0)}, {"trusted_proxies": 0}, False,
        ),
        ParameterSpec(
            ParameterKey.EULA_CUSTOM_TEXT, "EULA Custom Text",
            "This configuration parameter sets custom text for the end user license agreement.",
            {"custom_text": Text()}, {"custom_text": ""}, False,
        ),
        ParameterSpec(
            ParameterKey.TIERING, "Multi-Tier Analysis Configuration",
            "This configuration parameter determines the limits of tiering with respect to analysis.",
            {"tier_limit": Integer(minimum=0), "label_limit": Integer(minimum=0),
             "multi_tier_analysis_enabled": Boolean()},
            {"tier_limit": 1, "label_limit": 0, "multi_tier_analysis_enabled": False}, False,
        ),
        ParameterSpec(
            ParameterKey.UPDATED_STALE_CLIENT, "Updated Stale Client",
            "This configuration parameter records whether stale collection clients have been updated.",
            {"enabled": Boolean()}, {"enabled": False}, False,
        ),
        ParameterSpec(
            ParameterKey.RETAIN_INGEST_FILES, "Retain Ingest Files",
            "This configuration parameter determines whether uploaded files are kept after they are ingested.",
            {"enabled": Boolean()}, {"enabled": False}, False,
        ),
        ParameterSpec(
            ParameterKey.TAGGING, "Tagging Configuration",
            "This configuration parameter sets the worker limits of privilege zone tagging.",
            {"dawgs_worker_limit": Integer(minimum=1, maximum=6), "expansion_worker_limit": Integer(minimum=1),
             "selector_worker_limit": Integer(minimum=1)},
            {"dawgs_worker_limit": 2, "expansion_worker_limit": 3, "selector_worker_limit": 7}, False,
        ),
        ParameterSpec(
            ParameterKey.API_TIMEOUT_LIMIT, "API Timeout Limit",
            "This configuration parameter determines whether the request deadline set by `Prefer: wait` is "
            "enforced.",
            {"enabled": Boolean()}, {"enabled": True}, False,
        ),
        ParameterSpec(
            ParameterKey.API_TOKENS, "API Tokens",
            "This configuration parameter enables / disables the creation and use of API tokens.",
            {"enabled": Boolean()}, {"enabled": True}, False,
        ),
        ParameterSpec(
            ParameterKey.ENVIRONMENT_TARGETED_ACCESS_CONTROL, "Environment Targeted Access Control",
            "This configuration parameter enables / disables restricting users to selected environments.",
            {"enabled": Boolean()}, {"enabled": False}, False,
        ),
    )
}

DEFAULTS: dict[str, dict[str, Any]] = {key: dict(spec.default) for key, spec in PARAMETERS.items()}

USER_UPDATABLE: frozenset[str] = frozenset(key for key, spec in PARAMETERS.items() if spec.user_updatable)


def updatable_spec(key: str) -> ParameterSpec | None:
    """The spec of a key the API may change (and filter on); None for unknown and protected keys."""
    return PARAMETERS.get(ParameterKey(key)) if key in USER_UPDATABLE else None
