"""Collection clients: created with their signing token (and schedules), checked in, renamed, given a
new token, deleted (softly; the token stops working at once)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.client import repository
from houndgraph.client.schemas import ClientCheckIn, ClientCreate, ClientUpdate, ClientView, NewClientView
from houndgraph.client_job import service as job_service
from houndgraph.errors import BadRequest, Conflict
from houndgraph.event import service as event_service
from houndgraph.event.schemas import EventView
from houndgraph.event.service import Hydration
from houndgraph.kit.filters import Filter
from houndgraph.kit.pagination import Page
from houndgraph.kit.repository import add, get_or_404
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuthToken, Client
from houndgraph.models.auth_token import HMAC_SHA256
from houndgraph.models.base import utcnow
from houndgraph.token.schemas import NewTokenView
from houndgraph.token.service import new_key

NAME_REQUIRED = "client name is required"
NAME_TAKEN = "client name must be unique"
CLIENT_DELETED = "the client was deleted"


async def _check_name(session: AsyncSession, name: str, other_than: uuid.UUID | None = None) -> str:
    name = name.strip()
    if not name:
        raise BadRequest(NAME_REQUIRED)
    if await repository.name_taken(session, name, other_than):
        raise Conflict(NAME_TAKEN)
    return name


async def _issue_token(session: AsyncSession, client: Client) -> AuthToken:
    return await repository.add_token(session, AuthToken(
        client_id=client.id, user_id=None, name=client.name, key=new_key(), hmac_method=HMAC_SHA256,
        last_access=utcnow()))


async def create(session: AsyncSession, request: ClientCreate) -> NewClientView:
    """The client, its token (the key shown this once) and its schedules, all or nothing."""
    name = await _check_name(session, request.name)
    client = await add(session, Client(name=name, type=request.type.value,
                                                  domain_controller=request.domain_controller or None))
    token = await _issue_token(session, client)
    for event in request.events:
        await event_service.create(session, event, client.id)
    shown = await view(session, client, Hydration())
    return NewClientView(**shown.model_dump(exclude={"token"}), token=NewTokenView.of(token))


async def get(session: AsyncSession, client_id: uuid.UUID, *, for_update: bool = False) -> Client:
    return get_or_404(await repository.live_by_id(session, client_id, for_update=for_update))


async def update(session: AsyncSession, client_id: uuid.UUID, request: ClientUpdate) -> Client:
    client = await get(session, client_id, for_update=True)
    client.name = await _check_name(session, request.name, client.id)
    client.domain_controller = request.domain_controller or None
    await session.flush()
    return client


async def delete(session: AsyncSession, client_id: uuid.UUID) -> None:
    """Soft: the history stays; the token is deleted, schedules stop, open jobs are canceled."""
    client = await get(session, client_id, for_update=True)
    await repository.delete_tokens(session, client.id)
    await event_service.delete_of_client(session, client.id)
    await job_service.cancel_open_jobs(session, client.id, CLIENT_DELETED)
    client.deleted_at = utcnow()
    client.current_job_id = None
    await session.flush()


async def replace_token(session: AsyncSession, client_id: uuid.UUID) -> AuthToken:
    """A new token; the old one stops working now."""
    client = await get(session, client_id, for_update=True)
    await repository.delete_tokens(session, client.id)
    return await _issue_token(session, client)


async def check_in(session: AsyncSession, client_id: uuid.UUID, request: ClientCheckIn) -> Client:
    client = await get(session, client_id, for_update=True)
    client.ip_address, client.hostname = request.address, request.hostname
    client.configured_user, client.version = request.username, request.version
    client.user_sid = request.usersid or None
    client.last_checkin = utcnow()
    await session.flush()
    return client


async def list_clients(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                       page: Page) -> tuple[Sequence[Client], int]:
    return await repository.list_clients(session, filters, sort, page)


async def views(session: AsyncSession, clients: Sequence[Client], hydration: Hydration) -> list[ClientView]:
    ids = [client.id for client in clients]
    events: dict[uuid.UUID, list[EventView]] = {}
    for event in await event_service.views(session, await event_service.of_clients(session, ids), hydration):
        events.setdefault(event.client_id, []).append(event)
    tokens = await repository.tokens_of(session, ids)
    completed = await job_service.completed_counts(session, ids)
    # A client's current job is one of its own, so its client name is the client's.
    jobs = await job_service.by_ids(session, [c.current_job_id for c in clients if c.current_job_id])
    running = [(jobs[c.current_job_id], c.name) for c in clients if c.current_job_id in jobs]
    current = {view.id: view for view in await job_service.views(session, running, hydration)}
    return [ClientView.of(client, events=events.get(client.id, []), token=tokens.get(client.id),
                          completed=completed.get(client.id, 0),
                          current_job=current.get(client.current_job_id) if client.current_job_id else None)
            for client in clients]


async def view(session: AsyncSession, client: Client, hydration: Hydration) -> ClientView:
    (shown,) = await views(session, [client], hydration)
    return shown
