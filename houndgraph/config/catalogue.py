"""Parameter keys and their default values. Other domains read values through `config.service`."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ParameterKey(StrEnum):
    SESSION_TTL_HOURS = "auth.session_ttl_hours"
    API_TOKENS = "auth.api_tokens"
    PASSWORD_EXPIRATION_WINDOW = "auth.password_expiration_window"
    CITRIX_RDP_SUPPORT = "analysis.citrix_rdp_support"
    RECONCILIATION = "analysis.reconciliation"


DEFAULTS: dict[str, dict[str, Any]] = {
    ParameterKey.SESSION_TTL_HOURS: {"hours": 8},
    ParameterKey.API_TOKENS: {"enabled": True},
    ParameterKey.PASSWORD_EXPIRATION_WINDOW: {"duration": "P90D"},
    ParameterKey.CITRIX_RDP_SUPPORT: {"enabled": False},
    ParameterKey.RECONCILIATION: {"enabled": True},
}
