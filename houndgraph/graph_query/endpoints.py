"""POST /api/v2/graphs/cypher; the kinds it may name (GET /api/v2/graphs/kinds and /source-kinds)."""

from __future__ import annotations

import json

from fastapi import Request, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep, SettingsDep
from houndgraph.graph_query import service
from houndgraph.graph_query.schemas import CypherAnswer, CypherQueryRequest, GraphAnswer, KindList, SourceKindList
from houndgraph.kit.answers import answers
from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.offload import off_loop
from houndgraph.kit.responses import JSONResponse


@answers(CypherAnswer)
async def run_cypher_query(body: CypherQueryRequest, auth: CurrentAuth, session: SessionDep,
                           settings: SettingsDep, request: Request) -> Response:
    graph = await service.run_cypher(session, auth, body, mutations_enabled=settings.enable_cypher_mutations,
                                     complexity_limit=not settings.disable_cypher_complexity_limit,
                                     request_id=getattr(request.state, "request_id", None),
                                     slots=request.app.state.graph_query_slots)
    return await off_loop(_response, graph) if service.is_large(graph) else _response(graph)


def _response(graph: GraphAnswer) -> Response:
    # Optional keys are left out rather than sent as null, as the reference does.
    return JSONResponse({"data": graph.wire()})


async def reads_only(request: Request) -> bool:
    """Whether the body's Cypher query has no updating clause, so that the read replica may run it. A body that is
    not a query is refused by the handler, on the primary."""
    try:
        text = json.loads(await request.body()).get("query")
    except (ValueError, AttributeError):
        return False
    return isinstance(text, str) and service.reads_only(text)


async def list_kinds(session: SessionDep) -> DataEnvelope[KindList]:
    return DataEnvelope(data=await service.list_kinds(session))


async def list_source_kinds(session: SessionDep) -> DataEnvelope[SourceKindList]:
    return DataEnvelope(data=await service.list_source_kinds(session))
