"""GET /api/v2/graphs/shortest-path, the deprecated GET /api/v2/pathfinding, GET /api/v2/graphs/relay-targets."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.deps import SessionDep
from houndgraph.kit.responses import JSONResponse
from houndgraph.pathfinding import service


async def get_shortest_path(request: Request, session: SessionDep) -> Response:
    graph = await service.shortest_path(session, request.query_params)
    return JSONResponse({"data": graph.model_dump(mode="json", by_alias=True, exclude_none=True)})


async def get_pathfinding(request: Request, session: SessionDep) -> Response:
    # Deprecated in favour of /graphs/shortest-path (RFC 9745 header; the route table marks it too).
    return JSONResponse({"data": await service.pathfinding(session, request.query_params)},
                        headers={"Deprecation": "true"})


async def get_relay_targets(request: Request, session: SessionDep) -> Response:
    graph = await service.relay_targets(session, request.query_params)
    body = graph.model_dump(mode="json", by_alias=True, exclude_none=True)
    return JSONResponse({"data": {**body, "literals": []}})
