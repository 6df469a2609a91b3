"""Entity panels (GET /api/v2/<kind>/{object_id}), their related lists, and Meta nodes.

The handlers are made per entity from the catalogue, so every panel and list behaves the same way;
`ROUTES` lists them for the route table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request, Response

from houndgraph.deps import SessionDep
from houndgraph.entity import azure_service, service
from houndgraph.entity.ad_panels import ENTITIES, Entity
from houndgraph.kit.responses import JSONResponse

Handler = Callable[..., Awaitable[Response]]


def _info_handler(entity: Entity) -> Handler:
    async def handler(object_id: str, request: Request, session: SessionDep) -> Response:
        data = await service.entity_info(session, entity, object_id, request.query_params)
        return JSONResponse({"data": data})

    handler.__name__ = f"get_{entity.slug.replace('-', '_')}_entity_info"
    return handler


def _list_handler(entity: Entity, list_slug: str) -> Handler:
    relation = entity.relation(list_slug)
    assert relation is not None

    async def handler(object_id: str, request: Request, session: SessionDep) -> Response:
        parsed = service.parse_list_request(request.query_params, request.query_params.getlist("sort_by"))
        body: Any = await service.related(session, entity, relation, object_id, parsed)
        return JSONResponse(body)

    handler.__name__ = f"list_{entity.slug}_{list_slug}".replace("-", "_")
    return handler


async def get_azure_entity(entity_type: str, request: Request, session: SessionDep) -> Response:
    answer = await azure_service.azure_entity(session, entity_type, request.query_params)
    return JSONResponse({"data": answer.body} if answer.wrapped else answer.body)


async def get_meta_entity(object_id: str, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.meta(session, object_id)})


def _routes() -> list[tuple[str, Handler]]:
    routes: list[tuple[str, Handler]] = []
    for entity in ENTITIES.values():
        routes.append((f"/api/v2/{entity.slug}/{{object_id}}", _info_handler(entity)))
        routes.extend((f"/api/v2/{entity.slug}/{{object_id}}/{slug}", _list_handler(entity, slug))
                      for slug in entity.list_slugs)
    return routes


# (path, handler) of every AD entity panel and related list; all are GETs needing GraphDBRead.
ROUTES = _routes()
