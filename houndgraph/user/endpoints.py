from __future__ import annotations

from fastapi import Request, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.ids import parse_uuid
from houndgraph.kit.query import parse_list_query
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


def _empty_ok() -> Response:
    # The reference answers these writes with 200 and no body.
    return Response(status_code=200, media_type="text/plain")


async def list_users_minimal(request: Request, session: SessionDep) -> DataEnvelope[MinimalUserList]:
    query = parse_list_query(request, sortable=listing.MINIMAL_USER_SORTABLE,
                             default_sort=listing.MINIMAL_USER_DEFAULT_SORT, filters=listing.MINIMAL_USER_FILTERS,
                             not_sortable=listing.MINIMAL_NOT_SORTABLE)
    users = await user_service.list_active_users(session, query.filters, query.sort)
    return DataEnvelope(data=MinimalUserList(users=[MinimalUserView.of(user) for user in users]))


async def list_users(request: Request, session: SessionDep) -> DataEnvelope[UserList]:
    query = parse_list_query(request, sortable=listing.USER_SORTABLE, default_sort=listing.USER_DEFAULT_SORT,
                             filters=listing.USER_FILTERS)
    users = await user_service.list_users(session, query.filters, query.sort)
    return DataEnvelope(data=UserList(users=[UserView.of(user) for user in users]))


async def create_user(body: UserCreate, session: SessionDep) -> DataEnvelope[UserView]:
    return DataEnvelope(data=UserView.of(await user_service.create(session, body)))


async def get_user(user_id: str, session: SessionDep) -> DataEnvelope[UserView]:
    return DataEnvelope(data=UserView.of(await user_service.get(session, parse_uuid(user_id))))


async def update_user(user_id: str, body: UserUpdate, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.update(session, auth, parse_uuid(user_id), body)
    return _empty_ok()


async def delete_user(user_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.delete(session, auth, parse_uuid(user_id))
    return _empty_ok()


async def set_user_secret(user_id: str, body: SecretUpdate, auth: CurrentAuth, session: SessionDep) -> Response:
    await user_service.set_secret(session, auth, parse_uuid(user_id), body)
    return _empty_ok()


async def list_roles(request: Request, session: SessionDep) -> DataEnvelope[RoleList]:
    query = parse_list_query(request, sortable=listing.ROLE_SORTABLE, default_sort=listing.ROLE_DEFAULT_SORT,
                             filters=listing.ROLE_FILTERS)
    roles = await user_service.list_roles(session, query.filters, query.sort)
    return DataEnvelope(data=RoleList(roles=[RoleView.of(role) for role in roles]))


async def list_permissions(request: Request, session: SessionDep) -> DataEnvelope[PermissionList]:
    query = parse_list_query(request, sortable=listing.PERMISSION_SORTABLE,
                             default_sort=listing.PERMISSION_DEFAULT_SORT, filters=listing.PERMISSION_FILTERS)
    permissions = await user_service.list_permissions(session, query.filters, query.sort)
    return DataEnvelope(data=PermissionList(permissions=[PermissionView.of(p) for p in permissions]))
