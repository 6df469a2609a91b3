"""Entity panels (GET /api/v2/<kind>/{object_id}), their related lists, and Meta nodes.

The handlers are made per entity from the catalogue, so every panel and list behaves the same way;
`ROUTES` lists them for the route table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Query, Response
from pydantic import BaseModel

from houndgraph.deps import SessionDep
from houndgraph.entity import azure_service, service
from houndgraph.entity.ad_panels import ENTITIES, Entity
from houndgraph.entity.schemas import (
    AzureEntityAnswer,
    BloodHoundGraphAnswer,
    DomainCollectedAnswer,
    GraphNodeView,
    GraphRelationshipView,
    MetaEntityAnswer,
    RelatedEntitiesAnswer,
    entity_info_answer,
)
from houndgraph.kit.answers import answers
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.params import LimitText, SkipText
from houndgraph.kit.query import parse_bool
from houndgraph.kit.responses import JSONResponse

Handler = Callable[..., Awaitable[Response]]
# The upstream spec names the parameter `counts`; its description (and the seed) say `count`.
CountsText = Annotated[str | None, Query(description="Include the related entities' counts (default true).")]
CountText = Annotated[str | None, Query(description="The older spelling of `counts`.")]
TypeText = Annotated[str | None, Query(description="`list` (default) or `graph`.")]
SortBy = Annotated[list[str], Query(description="Sortable columns are name, objectid; prefix - for descending.")]


def _include_counts(counts: CountsText = None, count: CountText = None) -> bool:
    return parse_bool(counts if counts is not None else count, True)


def _list_request(type: TypeText = None, skip: SkipText = None, limit: LimitText = None,  # noqa: A002
                  sort_by: SortBy = []) -> service.ListRequest:  # noqa: B006
    return service.parse_list_request(type, skip, limit, sort_by)


IncludeCounts = Annotated[bool, Depends(_include_counts)]
RelatedListRequest = Annotated[service.ListRequest, Depends(_list_request)]


def _info_handler(entity: Entity) -> Handler:
    @answers(entity_info_answer(entity))
    async def handler(object_id: str, include_counts: IncludeCounts, session: SessionDep) -> Response:
        data = await service.entity_info(session, entity, object_id, include_counts)
        return JSONResponse({"data": data})

    handler.__name__ = f"get_{entity.slug.replace('-', '_')}_entity_info"
    return handler


def _list_handler(entity: Entity, list_slug: str) -> Handler:
    relation = entity.relation(list_slug)
    assert relation is not None

    @answers(RelatedEntitiesAnswer)
    async def handler(object_id: str, parsed: RelatedListRequest, session: SessionDep) -> Response:
        body: Any = await service.related(session, entity, relation, object_id, parsed)
        return JSONResponse(body)

    handler.__name__ = f"list_{entity.slug}_{list_slug}".replace("-", "_")
    return handler


def _azure_query(object_id: str | None = None, related_entity_type: str | None = None, counts: CountsText = None,
                 count: CountText = None, type: TypeText = None, skip: SkipText = None,  # noqa: A002
                 limit: LimitText = None) -> azure_service.AzureQuery:
    return azure_service.AzureQuery(object_id, related_entity_type, counts if counts is not None else count, type,
                                    skip, limit)


@answers(AzureEntityAnswer)
async def get_azure_entity(entity_type: str, query: Annotated[azure_service.AzureQuery, Depends(_azure_query)],
                           session: SessionDep) -> Response:
    answer = await azure_service.azure_entity(session, entity_type, query)
    return JSONResponse({"data": answer.body} if answer.wrapped else answer.body)


class DomainUpdate(BaseModel):
    collected: bool


@answers(DomainCollectedAnswer)
async def update_domain(object_id: str, body: DomainUpdate, session: SessionDep) -> Response:
    return JSONResponse({"data": {"collected": await service.set_domain_collected(session, object_id, body.collected)}})


@answers(MetaEntityAnswer)
async def get_meta_entity(object_id: str, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.meta(session, object_id)})


@answers(BloodHoundGraphAnswer)
async def get_tier_zero_combo_node(domain_id: str, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.tier_zero_combo_node(session, domain_id)})


@answers(BloodHoundGraphAnswer)
async def get_tier_zero_combo_tree(domain_id: str, session: SessionDep, node_id: str | None = None) -> Response:
    # `node_id` (the combo node to expand) is accepted; a domain has one combo node here.
    return JSONResponse({"data": await service.tier_zero_combo_tree(session, domain_id)})


def _routes() -> list[tuple[str, Handler]]:
    routes: list[tuple[str, Handler]] = []
    for entity in ENTITIES.values():
        routes.append((f"/api/v2/{entity.slug}/{{object_id}}", _info_handler(entity)))
        routes.extend((f"/api/v2/{entity.slug}/{{object_id}}/{slug}", _list_handler(entity, slug))
                      for slug in entity.list_slugs)
    return routes


# (path, handler) of every AD entity panel and related list; all are GETs needing GraphDBRead.
ROUTES = _routes()


async def get_node_by_graph_id(node_id: str, session: SessionDep) -> DataEnvelope[GraphNodeView]:
    return DataEnvelope(data=await service.node_by_graph_id(session, node_id))


async def get_relationship_by_graph_id(relationship_id: str,
                                       session: SessionDep) -> DataEnvelope[GraphRelationshipView]:
    return DataEnvelope(data=await service.relationship_by_graph_id(session, relationship_id))
