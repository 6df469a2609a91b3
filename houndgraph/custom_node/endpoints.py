"""`/api/v2/custom-nodes`: display settings of node kinds."""

from __future__ import annotations

from fastapi import Response

from houndgraph.custom_node import service
from houndgraph.custom_node.schemas import CreateCustomNodes, CustomNodeKindView, UpdateCustomNode
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope


async def list_custom_nodes(session: SessionDep) -> DataEnvelope[list[CustomNodeKindView]]:
    return DataEnvelope(data=[CustomNodeKindView.of(row) for row in await service.list_kinds(session)])


async def create_custom_nodes(body: CreateCustomNodes, session: SessionDep) -> DataEnvelope[list[CustomNodeKindView]]:
    return DataEnvelope(data=[CustomNodeKindView.of(row) for row in await service.create_kinds(session, body)])


async def get_custom_node(kind_name: str, session: SessionDep) -> DataEnvelope[CustomNodeKindView]:
    return DataEnvelope(data=CustomNodeKindView.of(await service.get_kind(session, kind_name)))


async def update_custom_node(kind_name: str, body: UpdateCustomNode,
                             session: SessionDep) -> DataEnvelope[CustomNodeKindView]:
    return DataEnvelope(data=CustomNodeKindView.of(await service.update_kind(session, kind_name, body.config)))


@answers_nothing
async def delete_custom_node(kind_name: str, session: SessionDep) -> Response:
    await service.delete_kind(session, kind_name)
    return Response(status_code=200)
