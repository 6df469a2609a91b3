"""GET /api/v2/graphs/shortest-path, the deprecated GET /api/v2/pathfinding, GET /api/v2/graphs/relay-targets,
/graphs/edge-composition and /graphs/acl-inheritance."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response

from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers
from houndgraph.kit.params import flag_query, required_query
from houndgraph.kit.responses import JSONResponse
from houndgraph.pathfinding import service
from houndgraph.pathfinding.schemas import EdgeGraphAnswer, PathfindingAnswer, ShortestPathAnswer

StartNode = Annotated[str, Depends(required_query("start_node", service.missing("start_node")))]
EndNode = Annotated[str, Depends(required_query("end_node", service.missing("end_node")))]
OnlyTraversable = Annotated[bool, Depends(flag_query("only_traversable", False,
                                                     description="Follow traversable edge kinds only."))]
RelationshipKinds = Annotated[str | None, Query(description="`in:Kind1,Kind2` or `nin:Kind1,Kind2`.")]
# Relay targets expect one value each; all are passed on so that a repeated one is refused.
Values = Annotated[list[str], Query()]


@answers(ShortestPathAnswer)
async def get_shortest_path(start_node: StartNode, end_node: EndNode, only_traversable: OnlyTraversable,
                            session: SessionDep, relationship_kinds: RelationshipKinds = None) -> Response:
    return JSONResponse({"data": await service.shortest_path(session, start_node, end_node, relationship_kinds,
                                                             only_traversable)})


@answers(PathfindingAnswer)
async def get_pathfinding(start_node: StartNode, end_node: EndNode, session: SessionDep) -> Response:
    # Deprecated in favour of /graphs/shortest-path (RFC 9745 header; the route table marks it too).
    return JSONResponse({"data": await service.pathfinding(session, start_node, end_node)},
                        headers={"Deprecation": "true"})


@answers(EdgeGraphAnswer)
async def get_relay_targets(session: SessionDep, edge_type: Values = [], source_node: Values = [],  # noqa: B006
                            target_node: Values = []) -> Response:  # noqa: B006
    graph = await service.relay_targets(session, edge_type, source_node, target_node)
    body = graph.model_dump(mode="json", by_alias=True, exclude_none=True)
    return JSONResponse({"data": {**body, "literals": []}})


@answers(EdgeGraphAnswer)
async def get_edge_composition(session: SessionDep, edge_type: Values = [], source_node: Values = [],  # noqa: B006
                               target_node: Values = []) -> Response:  # noqa: B006
    graph = await service.edge_composition(session, edge_type, source_node, target_node)
    body = graph.model_dump(mode="json", by_alias=True, exclude_none=True)
    return JSONResponse({"data": {**body, "literals": []}})


@answers(EdgeGraphAnswer)
async def get_acl_inheritance(session: SessionDep, edge_type: Values = [], source_node: Values = [],  # noqa: B006
                              target_node: Values = []) -> Response:  # noqa: B006
    graph = await service.acl_inheritance(session, edge_type, source_node, target_node)
    body = graph.model_dump(mode="json", by_alias=True, exclude_none=True)
    return JSONResponse({"data": {**body, "literals": []}})
