"""Signing in over HTTP: login, logout, `/self`, and a user's multi-factor authentication."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.auth.dependencies import AddressPaceDep, ClientAddress, CurrentAuth, PasswordPoolDep, auth_cache
from houndgraph.deps import SessionDep, SessionsDep, SettingsDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_uuid
from houndgraph.login import mfa, service
from houndgraph.login.schemas import (
    LoginRequest,
    LoginResponse,
    MFAActivationRequest,
    MFAEnrollmentRequest,
    MFAEnrollmentView,
    MFAStatusView,
)
from houndgraph.user.schemas import UserView


async def login(body: LoginRequest, request: Request, sessions: SessionsDep, settings: SettingsDep,
                passwords: PasswordPoolDep, pace: AddressPaceDep,
                address: ClientAddress) -> DataEnvelope[LoginResponse]:
    attempt = service.LoginAttempt(body.username, body.secret, address, getattr(request.state, "request_id", None),
                                   body.otp)
    result = await service.login(sessions, settings, passwords, pace, attempt)
    return DataEnvelope(data=LoginResponse(user_id=result.user_id, auth_expired=result.auth_expired,
                                           session_token=result.session_token))


@answers_nothing
async def logout(auth: CurrentAuth, session: SessionDep) -> Response:
    await service.logout(session, auth)
    return Response(status_code=200, media_type="text/plain", headers={"Location": "/ui/login"})


async def get_self(auth: CurrentAuth, session: SessionDep, request: Request) -> DataEnvelope[UserView]:
    return DataEnvelope(data=await service.self_view(session, auth.user_id, auth_cache(request)))


async def enroll_mfa(user_id: str, body: MFAEnrollmentRequest, request: Request, auth: CurrentAuth,
                     session: SessionDep) -> DataEnvelope[MFAEnrollmentView]:
    # The authenticator app shows the host the user signed in to.
    enrollment = await mfa.enroll(session, auth, parse_uuid(user_id), body.secret, request.url.hostname or "houndgraph")
    return DataEnvelope(data=MFAEnrollmentView(qr_code=enrollment.qr_code, totp_secret=enrollment.totp_secret))


async def remove_mfa(user_id: str, body: MFAEnrollmentRequest, auth: CurrentAuth,
                     session: SessionDep) -> DataEnvelope[MFAStatusView]:
    status = await mfa.deactivate(session, auth, parse_uuid(user_id), body.secret)
    return DataEnvelope(data=MFAStatusView(status=status))


async def get_mfa_status(user_id: str, auth: CurrentAuth, session: SessionDep) -> DataEnvelope[MFAStatusView]:
    return DataEnvelope(data=MFAStatusView(status=await mfa.status(session, auth, parse_uuid(user_id))))


async def activate_mfa(user_id: str, body: MFAActivationRequest, auth: CurrentAuth,
                       session: SessionDep) -> DataEnvelope[MFAStatusView]:
    status = await mfa.activate(session, auth, parse_uuid(user_id), body.otp)
    return DataEnvelope(data=MFAStatusView(status=status))
