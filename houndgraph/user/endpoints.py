from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response

from houndgraph.auth.dependencies import CurrentAuth, generation_cached
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_int_id, parse_uuid
from houndgraph.kit.params import list_query
from houndgraph.kit.query import ListQuery
from houndgraph.user import listing
from houndgraph.user import service as user_service
from houndgraph.user.schemas import (
    MinimalUserList,
    MinimalUserView,
    PermissionList,
    PermissionView,
    RoleList,
    RoleView,
    SecretUpdate,
    UserCreate,
    UserList,
    UserUpdate,
    UserView,
)

MinimalUserQuery = Annotated[ListQuery, Depends(list_query(listing.MINIMAL_USERS))]
UserQuery = Annotated[ListQuery, Depends(list_query(listing.USERS))]
RoleQuery = Annotated[ListQuery, Depends(list_query(listing.ROLES))]
PermissionQuery = Annotated[ListQuery, Depends(list_query(listing.PERMISSIONS))]


def _empty_ok() -> Response:
    # The reference answers these writes with 200 and no body.
    return Response(status_code=200, media_type="text/plain")


async def list_users_minimal(request: Request, query: MinimalUserQuery, session: SessionDep
                             ) -> DataEnvelope[MinimalUserList]:
    async def listed() -> DataEnvelope[MinimalUserList]:
        users = await user_service.list_active_users(session, query.filters, query.sort)
        return DataEnvelope(data=MinimalUserList(users=[MinimalUserView.of(user) for user in users]))

    # Users added, changed or deleted move the cache generation (migrations 0017, 0023 and 0024).
    return await generation_cached(request, session, listed)


async def list_users(query: UserQuery, session: SessionDep) -> DataEnvelope[UserList]:
    users = await user_service.list_users(session, query.filters, query.sort)
    return DataEnvelope(data=UserList(users=[UserView.of(user) for user in users]))


async def create_user(body: UserCreate, session: SessionDep) -> DataEnvelope[UserView]:
    return DataEnvelope(data=UserView.of(await user_service.create(session, body)))


async def get_user(user_id: str, session: SessionDep) -> DataEnvelope[UserView]:
    return DataEnvelope(data=UserView.of(await user_service.get(session, parse_uuid(user_id))))


@answers_nothing
async def update_user(user_id: str, body: UserUpdate, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.update(session, auth, parse_uuid(user_id), body)
    return _empty_ok()


@answers_nothing
async def delete_user(user_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.delete(session, auth, parse_uuid(user_id))
    return _empty_ok()


@answers_nothing
async def set_user_secret(user_id: str, body: SecretUpdate, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.set_secret(session, auth, parse_uuid(user_id), body)
    return _empty_ok()


@answers_nothing
async def expire_user_secret(user_id: str, session: SessionDep) -> Response:
    await user_service.expire_secret(session, parse_uuid(user_id))
    return _empty_ok()


@answers_nothing
async def accept_eula(auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.accept_eula(session, auth.user_id)
    return Response(status_code=202)


async def get_role(role_id: str, session: SessionDep) -> DataEnvelope[RoleView]:
    return DataEnvelope(data=RoleView.of(await user_service.get_role(session, parse_int_id(role_id, bits=32))))


async def get_permission(permission_id: str, session: SessionDep) -> DataEnvelope[PermissionView]:
    permission = await user_service.get_permission(session, parse_int_id(permission_id, bits=32))
    return DataEnvelope(data=PermissionView.of(permission))


async def list_roles(query: RoleQuery, session: SessionDep) -> DataEnvelope[RoleList]:
    roles = await user_service.list_roles(session, query.filters, query.sort)
    return DataEnvelope(data=RoleList(roles=[RoleView.of(role) for role in roles]))


async def list_permissions(query: PermissionQuery, session: SessionDep) -> DataEnvelope[PermissionList]:
    permissions = await user_service.list_permissions(session, query.filters, query.sort)
    return DataEnvelope(data=PermissionList(permissions=[PermissionView.of(p) for p in permissions]))
