from __future__ import annotations

from fastapi import Request, Response

from houndgraph.auth import service
from houndgraph.auth.dependencies import AddressPaceDep, ClientAddress, CurrentAuth, PasswordPoolDep, auth_cache
from houndgraph.auth.schemas import LoginRequest, LoginResponse
from houndgraph.deps import SessionDep, SessionsDep, SettingsDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope
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
