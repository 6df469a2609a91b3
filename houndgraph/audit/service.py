"""The audit log, for any domain: an action's intent before it runs, and its outcome after.

The intent and a failure are written in transactions of their own, so that they survive the
rollback of the request that failed; a success is written in the request's transaction, so that it
is recorded exactly when the change it reports is committed.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit import repository
from houndgraph.audit.schemas import DEFAULT_LIMIT, DEFAULT_WINDOW_DAYS, AuditLogQuery
from houndgraph.auth.context import AuthContext
from houndgraph.kit.pagination import parse_page
from houndgraph.kit.query import ListQuery, parse_time
from houndgraph.models import AuditLog


class AuditAction(StrEnum):
    """The reference's action names (model/audit.go) where it has one."""

    MUTATE_GRAPH = "MutateGraph"
    LOGIN_ATTEMPT = "LoginAttempt"
    UNAUTHORIZED_ACCESS_ATTEMPT = "UnauthorizedAccessAttempt"
    CREATE_AUTH_TOKEN = "CreateAuthToken"
    DELETE_AUTH_TOKEN = "DeleteAuthToken"
    CREATE_USER = "CreateUser"
    UPDATE_USER = "UpdateUser"
    DELETE_USER = "DeleteUser"
    UPDATE_USER_SECRET = "UpdateUserSecret"
    EXPIRE_USER_SECRET = "ExpireUserAuthSecret"
    ACCEPT_EULA = "AcceptEULA"
    ENROLL_MFA = "EnrollMFA"
    ACTIVATE_MFA = "ActivateMFA"
    DISENROLL_MFA = "DisenrollMFA"
    UPDATE_CONFIGURATION = "UpdateConfiguration"
    TOGGLE_FEATURE_FLAG = "ToggleFeatureFlag"
    CREATE_SSO_PROVIDER = "CreateSSOIdentityProvider"
    UPDATE_SSO_PROVIDER = "UpdateSSOIdentityProvider"
    DELETE_SSO_PROVIDER = "DeleteSSOIdentityProvider"
    DELETE_GRAPH_DATA = "DeleteBloodhoundData"
    REQUEST_ANALYSIS = "RequestAnalysis"
    CANCEL_ANALYSIS = "CancelAnalysisRequest"
    # Privilege zones. The reference names no action for certification or the legacy selector edits.
    CREATE_ASSET_GROUP_TAG = "CreateAssetGroupTag"
    UPDATE_ASSET_GROUP_TAG = "UpdateAssetGroupTag"
    DELETE_ASSET_GROUP_TAG = "DeleteAssetGroupTag"
    CREATE_ASSET_GROUP_TAG_SELECTOR = "CreateAssetGroupTagSelector"
    UPDATE_ASSET_GROUP_TAG_SELECTOR = "UpdateAssetGroupTagSelector"
    DELETE_ASSET_GROUP_TAG_SELECTOR = "DeleteAssetGroupTagSelector"
    CERTIFY_ASSET_GROUP_TAG_MEMBERS = "CertifyAssetGroupTagMembers"
    UPDATE_ASSET_GROUP_SELECTORS = "UpdateAssetGroupSelectors"
    CREATE_CUSTOM_NODE_KIND = "CreateCustomNodeKind"
    UPDATE_CUSTOM_NODE_KIND = "UpdateCustomNodeKind"
    DELETE_CUSTOM_NODE_KIND = "DeleteCustomNodeKind"
    # Collection clients, their schedules (events) and jobs. The reference names only the first two.
    CREATE_CLIENT = "CreateClient"
    REPLACE_CLIENT_TOKEN = "ReplaceClientToken"
    UPDATE_CLIENT = "UpdateClient"
    DELETE_CLIENT = "DeleteClient"
    CREATE_CLIENT_SCHEDULE = "CreateClientSchedule"
    UPDATE_CLIENT_SCHEDULE = "UpdateClientSchedule"
    DELETE_CLIENT_SCHEDULE = "DeleteClientSchedule"
    CREATE_CLIENT_JOB = "CreateClientJob"
    CANCEL_CLIENT_JOB = "CancelClientJob"
    # Ours: who accepted an attack-path finding as a risk, until when and why.
    UPDATE_RISK_ACCEPTANCE = "UpdateRiskAcceptance"


class AuditStatus(StrEnum):
    INTENT = "intent"
    SUCCESS = "success"
    FAILURE = "failure"


@dataclass(frozen=True)
class AuditedAction:
    """One action being audited: its entries share the commit id. Without `auth` (a login), the actor is
    the one the fields name, if any."""

    auth: AuthContext | None
    action: AuditAction
    fields: dict[str, Any]
    request_id: str | None = None
    commit_id: uuid.UUID = field(default_factory=uuid.uuid4)

    def entry(self, status: AuditStatus, extra: dict[str, Any] | None = None,
              actor: tuple[uuid.UUID | None, str] | None = None) -> dict[str, Any]:
        actor_id, actor_name = actor or ((self.auth.user_id, self.auth.principal_name) if self.auth else (None, ""))
        return {"actor_id": actor_id, "actor_name": actor_name, "action": self.action.value,
                "status": status.value, "commit_id": self.commit_id, "request_id": self.request_id,
                "fields": {**self.fields, **(extra or {})}}


async def begin(session: AsyncSession, action: AuditedAction) -> None:
    await repository.add_now(session, **action.entry(AuditStatus.INTENT))


async def succeeded(session: AsyncSession, action: AuditedAction, actor: tuple[uuid.UUID, str] | None = None) -> None:
    await repository.add(session, **action.entry(AuditStatus.SUCCESS, actor=actor))


async def failed(session: AsyncSession, action: AuditedAction, error: str) -> None:
    await repository.add_now(session, **action.entry(AuditStatus.FAILURE, {"error": error}))


def log_query(listed: ListQuery, before: str | None, after: str | None, skip: str | None, offset: str | None,
              limit: str | None, *, now: datetime | None = None) -> AuditLogQuery:
    """The reference's window: `before` defaults to now, `after` to a year before `before`."""
    end = parse_time(before, now or datetime.now(UTC))
    start = parse_time(after, end - timedelta(days=DEFAULT_WINDOW_DAYS))
    page = parse_page(skip if skip is not None else offset, limit, default_limit=DEFAULT_LIMIT)
    return AuditLogQuery(start, end, listed.sort, listed.filters, page.skip, page.limit)


async def list_logs(session: AsyncSession, query: AuditLogQuery) -> tuple[Sequence[AuditLog], int]:
    return await repository.list_logs(session, query)


async def unauthorized(session: AsyncSession, auth: AuthContext, attempted: AuditAction, fields: dict[str, Any],
                       request_id: str | None = None) -> None:
    """An attempt refused for lack of permission (written at once: the refusal rolls the request back)."""
    action = AuditedAction(auth, AuditAction.UNAUTHORIZED_ACCESS_ATTEMPT, {"attempted": attempted.value, **fields},
                           request_id)
    await repository.add_now(session, **action.entry(AuditStatus.FAILURE))


async def login_failed(session: AsyncSession, username: str, fields: dict[str, Any],
                       request_id: str | None = None) -> None:
    """A refused login (written at once: the 401 rolls the request back). No actor: nobody is proven yet."""
    action = AuditedAction(None, AuditAction.LOGIN_ATTEMPT, {"username": username, **fields}, request_id)
    await repository.add_now(session, **action.entry(AuditStatus.FAILURE, actor=(None, username)))
