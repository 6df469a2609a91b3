from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    FilterColumn,
    as_bool,
    as_datetime,
)
from houndgraph.models import ClientEvent
from houndgraph.models.collection import SCOPE_FLAGS

DEFAULT_LIMIT = 100
HYDRATE_DOMAINS = "hydrate_domains"
HYDRATE_OUS = "hydrate_ous"
BOOLEAN_FILTER = FilterColumn(frozenset({*ID_PREDICATES}), as_bool)
TIME_FILTER = FilterColumn(ORDERED_PREDICATES, as_datetime)


class CollectionRequest(BaseModel):
    """What to collect and where: the flags and the scope shared by events and ad-hoc jobs."""

    session_collection: bool = False
    local_group_collection: bool = False
    ad_structure_collection: bool = False
    cert_services_collection: bool = False
    ca_registry_collection: bool = False
    dc_registry_collection: bool = False
    all_trusted_domains: bool = False
    ous: list[str] = Field(default_factory=list)
    domains: list[str] = Field(default_factory=list)


class EventRequest(CollectionRequest):
    """`model.client-schedule`: `client_id` names the client on create and is ignored on update."""

    client_id: uuid.UUID | None = None
    rrule: str = ""


class OUDetails(BaseModel):
    objectid: str
    name: str | None = None
    exists: bool | None = None
    distinguishedname: str | None = None
    type: str | None = None


class DomainDetails(BaseModel):
    objectid: str
    name: str | None = None
    exists: bool | None = None
    type: str | None = None


class CollectionFlags(BaseModel):
    session_collection: bool
    local_group_collection: bool
    ad_structure_collection: bool
    cert_services_collection: bool
    ca_registry_collection: bool
    dc_registry_collection: bool
    all_trusted_domains: bool

    @staticmethod
    def flags_of(row: Any) -> dict[str, Any]:
        return {flag: getattr(row, flag) for flag in SCOPE_FLAGS}


class CollectionView(CollectionFlags):
    ous: list[OUDetails]
    domains: list[DomainDetails]

    @staticmethod
    def fields_of(row: Any, ous: list[OUDetails], domains: list[DomainDetails]) -> dict[str, Any]:
        return {**CollectionFlags.flags_of(row), "ous": ous, "domains": domains}


class EventView(CollectionView):
    """`model.client-schedule-display`, with the time of the next run."""

    id: int
    client_id: uuid.UUID
    rrule: str
    next_scheduled_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, event: ClientEvent, ous: list[OUDetails], domains: list[DomainDetails]) -> EventView:
        return cls(id=event.id, client_id=event.client_id, rrule=event.rrule,
                   next_scheduled_at=event.next_scheduled_at, created_at=event.created_at,
                   updated_at=event.updated_at, **CollectionView.fields_of(event, ous, domains))
