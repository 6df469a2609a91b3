from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from houndgraph.client_job.schemas import JobView
from houndgraph.event.schemas import EventRequest, EventView
from houndgraph.kit.nullable import or_zero
from houndgraph.models import AuthToken, Client
from houndgraph.models.client import ClientType
from houndgraph.token.schemas import NewTokenView, TokenView

DEFAULT_LIMIT = 100

class ClientCreate(BaseModel):
    name: str = Field(max_length=255)
    type: ClientType
    domain_controller: str = Field(default="", max_length=255)
    events: list[EventRequest] = Field(default_factory=list)


class ClientUpdate(BaseModel):
    name: str = Field(max_length=255)
    domain_controller: str = Field(default="", max_length=255)


class ClientCheckIn(BaseModel):
    """`PUT /api/v2/clients/update`: what the client says about itself at start."""

    address: str = Field(default="", max_length=64)
    hostname: str = Field(default="", max_length=255)
    username: str = Field(default="", max_length=255)
    version: str = Field(default="", max_length=64)
    usersid: str = Field(default="", max_length=255)


class ClientError(BaseModel):
    task_error: str = ""
    additional: dict[str, str] = Field(default_factory=dict)


class ClientView(BaseModel):
    """`model.client-display`. `current_job` / `current_task` are left out while no job runs."""

    id: uuid.UUID
    name: str
    type: str
    ip_address: str
    hostname: str
    configured_user: str
    last_checkin: datetime
    version: str
    # null.String / null.Int64 in the reference: the plain value or null on the wire.
    user_sid: str | None
    domain_controller: str | None
    events: list[EventView]
    token: TokenView | None = None
    current_job_id: int | None
    current_task_id: int | None
    current_job: JobView | None = None
    current_task: JobView | None = None
    completed_job_count: int
    completed_task_count: int
    issuer_address: str
    issuer_address_override: str
    created_at: datetime
    updated_at: datetime

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for key in ("token", "current_job", "current_task"):
            if isinstance(data, dict) and data.get(key) is None:
                data.pop(key, None)
        return data

    @classmethod
    def of(cls, client: Client, *, events: list[EventView], token: AuthToken | None, current_job: JobView | None,
           completed: int) -> ClientView:
        current = client.current_job_id
        return cls(id=client.id, name=client.name, type=client.type, ip_address=client.ip_address,
                   hostname=client.hostname, configured_user=client.configured_user,
                   last_checkin=or_zero(client.last_checkin), version=client.version,
                   user_sid=client.user_sid, domain_controller=client.domain_controller,
                   events=events, token=TokenView.of(token) if token else None, current_job_id=current,
                   current_task_id=current, current_job=current_job, current_task=current_job,
                   completed_job_count=completed, completed_task_count=completed,
                   issuer_address=client.issuer_address, issuer_address_override=client.issuer_address_override,
                   created_at=client.created_at, updated_at=client.updated_at)


class NewClientView(ClientView):
    """A client as created: its token with the key, shown this once."""

    token: NewTokenView | None = None
