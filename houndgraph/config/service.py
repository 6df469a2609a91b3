"""Configuration parameters: listing and changing them, and typed readers for the other domains.
The stored value wins over the catalogue default."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.config import repository
from houndgraph.config.parameters import DEFAULTS, ParameterKey, updatable_spec
from houndgraph.config.validation import duration_to_timedelta, validate_value
from houndgraph.errors import BadRequest, Forbidden
from houndgraph.feature_flag import service as feature_flag_service
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from houndgraph.kit.filters import Filter, where
from houndgraph.models import Parameter


def _invalid_key(key: str) -> BadRequest:
    return BadRequest(f"Configuration parameter {key} is not valid.")


async def list_parameters(session: AsyncSession, filters: list[Filter]) -> list[Parameter]:
    """All parameters, or those named by `parameter=eq:<key>` filters (settable keys only, as the reference)."""
    for item in filters:
        if updatable_spec(item.value) is None:
            raise _invalid_key(item.value)
    return await repository.list_parameters(session, where(filters, {"parameter": Parameter.key}))


async def update(session: AsyncSession, key: str, value: Any) -> dict[str, Any]:
    """Validate and store a new value; returns it as stored."""
    spec = updatable_spec(key)
    if spec is None:
        raise _invalid_key(key)
    if spec.key == ParameterKey.API_TOKEN_EXPIRATION and not await _token_expiry_supported(session):
        raise Forbidden(f"Configuration parameter {key} is not available.")
    checked = validate_value(spec, value)
    await repository.upsert_value(session, spec.key, spec.name, spec.description, checked)
    return checked


def _or_default(key: ParameterKey, stored: dict[str, Any] | None) -> dict[str, Any]:
    return stored if stored is not None else dict(DEFAULTS[key])


async def get_value(session: AsyncSession, key: ParameterKey) -> dict[str, Any]:
    return _or_default(key, await repository.stored_value(session, key))


async def session_ttl(session: AsyncSession) -> timedelta:
    return timedelta(hours=int((await get_value(session, ParameterKey.SESSION_TTL_HOURS))["hours"]))


async def api_tokens_enabled(session: AsyncSession) -> bool:
    return bool((await get_value(session, ParameterKey.API_TOKENS))["enabled"])


async def _token_expiry_supported(session: AsyncSession) -> bool:
    return await feature_flag_service.is_enabled(session, FeatureFlagKey.API_KEY_EXPIRATION_SUPPORT)


async def api_token_lifetime(session: AsyncSession) -> timedelta | None:
    """How long a new API token lives; None (for ever) unless the flag and the parameter are both on."""
    if not await _token_expiry_supported(session):
        return None
    value = await get_value(session, ParameterKey.API_TOKEN_EXPIRATION)
    return timedelta(days=int(value["expiration_period"])) if value["enabled"] else None


async def password_expiration_window(session: AsyncSession) -> timedelta:
    value = await get_value(session, ParameterKey.PASSWORD_EXPIRATION_WINDOW)
    return duration_to_timedelta(value["duration"])


def citrix_rdp_support(conn: psycopg.Connection) -> bool:
    """Read by analysis in the datapipe, on its psycopg connection (CanRDP needs Direct Access Users too
    when it is on)."""
    key = ParameterKey.CITRIX_RDP_SUPPORT
    return bool(_or_default(key, repository.stored_value_on(conn, key))["enabled"])


async def reconciliation_enabled(session: AsyncSession) -> bool:
    return bool((await get_value(session, ParameterKey.RECONCILIATION))["enabled"])
