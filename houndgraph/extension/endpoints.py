"""`/api/v2/extensions` (upload, list, delete OpenGraph schema extensions) and `/api/v2/graph-schema/edges`."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep
from houndgraph.extension import service
from houndgraph.extension.schemas import EdgeKindView, ExtensionList, ExtensionView
from houndgraph.kit.answers import answers_nothing, answers_nothing_or
from houndgraph.kit.envelopes import DataEnvelope


@answers_nothing_or({200: "The extension of the same name was replaced."})
async def upload_extension(request: Request, auth: CurrentAuth, session: SessionDep) -> Response:
    """Create an extension from its schema file (JSON, or a zip bundle holding `schema.json`); 201 when it is new,
    200 when it replaced the extension of the same name."""
    replaced = await service.upload(session, auth, request.headers.get("content-type"), await request.body())
    return Response(status_code=200 if replaced else 201)


async def list_extensions(session: SessionDep) -> DataEnvelope[ExtensionList]:
    extensions = await service.list_extensions(session)
    return DataEnvelope(data=ExtensionList(extensions=[
        ExtensionView(id=row.id, name=row.display_name, namespace=row.namespace, version=row.version,
                      is_builtin=row.is_builtin) for row in extensions]))


@answers_nothing
async def delete_extension(extension_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await service.delete(session, auth, extension_id)
    return Response(status_code=204)


async def list_edge_kinds(request: Request, session: SessionDep) -> DataEnvelope[list[EdgeKindView]]:
    """Every edge kind an extension declares, built-in ones included; filters `is_traversable=eq:true` and
    `schema_names=eq:NAME` (several `schema_names` filters: any of them)."""
    rows = await service.list_edge_kinds(session, list(request.query_params.multi_items()))
    return DataEnvelope(data=[
        EdgeKindView(id=kind.id, name=kind.name, description=kind.description, is_traversable=kind.is_traversable,
                     schema_name=schema_name, is_builtin=is_builtin) for kind, schema_name, is_builtin in rows])
