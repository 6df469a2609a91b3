"""GET /api/v2/search and GET /api/v2/available-domains."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.deps import SessionDep
from houndgraph.kit.responses import JSONResponse
from houndgraph.search import service


async def search(request: Request, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.search(session, request.query_params)})


async def get_available_domains(request: Request, session: SessionDep) -> Response:
    return JSONResponse({"data": await service.available_domains(session, request)})
