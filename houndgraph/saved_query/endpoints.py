from __future__ import annotations

from typing import Annotated, cast
from urllib.parse import quote

import orjson
from fastapi import Depends, Query, Request, Response
from pydantic import SerializeAsAny

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import answers, answers_file
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery
from houndgraph.kit.responses import JSONResponse
from houndgraph.saved_query import service, sharing
from houndgraph.saved_query.listing import SAVED_QUERIES
from houndgraph.saved_query.schemas import (
    PermissionRequest,
    PermissionView,
    QueryPermissionsView,
    SavedQueryExport,
    SavedQueryRequest,
    SavedQueryView,
    ScopedSavedQueryView,
    UnshareRequest,
)
from houndgraph.saved_query.transfer import export_filename

EXPORT_ZIP_NAME = "exported_queries.zip"


def _attachment(filename: str) -> str:
    """Content-Disposition with an ASCII fallback and the exact UTF-8 name (RFC 6266)."""
    fallback = filename.encode("ascii", "replace").decode().replace("?", "_")
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename)}"


SavedQueryList = PageEnvelope[list[SerializeAsAny[SavedQueryView]]]
SavedQueryListQuery = Annotated[ListQuery, Depends(list_query(SAVED_QUERIES))]
SavedQueryPage = Annotated[Page, Depends(page_query(service.DEFAULT_LIMIT))]
Scope = Annotated[str | None, Query(description="Comma-separated owned, shared, public or all (export: one).")]


async def list_saved_queries(auth: CurrentAuth, query: SavedQueryListQuery, page: SavedQueryPage,
                             session: SessionDep, scope: Scope = None
                             ) -> SavedQueryList:
    if scope is None:
        rows, count = await service.list_owned(session, auth, query, page)
        body = orjson.dumps({"count": count, "skip": page.skip, "limit": page.limit,
                             "data": [SavedQueryView.json_of(row) for row in rows]}, option=orjson.OPT_UTC_Z)
        # FastAPI sends a Response as it is; the annotation still describes it in the OpenAPI document.
        return cast(SavedQueryList, Response(body, media_type="application/json"))
    listing = await service.list_queries(session, auth, query, page, scope)
    data: list[SavedQueryView] = [ScopedSavedQueryView.scoped(row, label) for row, label in listing.items]
    return PageEnvelope(count=listing.count, skip=listing.page.skip, limit=listing.page.limit, data=data)


async def create_saved_query(body: SavedQueryRequest, auth: CurrentAuth,
                             session: SessionDep) -> DataEnvelope[SavedQueryView]:
    return DataEnvelope(data=SavedQueryView.of(await service.create(session, auth, body)))


async def get_saved_query(saved_query_id: str, auth: CurrentAuth,
                          session: SessionDep) -> DataEnvelope[SavedQueryView]:
    row = await service.get_visible(session, auth, parse_int_id(saved_query_id))
    return DataEnvelope(data=SavedQueryView.of(row))


async def update_saved_query(saved_query_id: str, body: SavedQueryRequest, auth: CurrentAuth,
                             session: SessionDep) -> DataEnvelope[SavedQueryView]:
    row = await service.update(session, auth, parse_int_id(saved_query_id), body)
    return DataEnvelope(data=SavedQueryView.of(row))


async def delete_saved_query(saved_query_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await service.delete(session, auth, parse_int_id(saved_query_id))
    return Response(status_code=204)


async def get_permissions(saved_query_id: str, auth: CurrentAuth,
                          session: SessionDep) -> DataEnvelope[QueryPermissionsView]:
    result = await sharing.get_permissions(session, auth, parse_int_id(saved_query_id))
    return DataEnvelope(data=QueryPermissionsView(query_id=result.query_id, public=result.public,
                                                  shared_to_user_ids=result.shared_to_user_ids))


@answers(DataEnvelope[list[PermissionView]], others={204: {"description": "Nothing was created."}})
async def share_saved_query(saved_query_id: str, body: PermissionRequest, auth: CurrentAuth,
                            session: SessionDep) -> Response:
    rows = await sharing.share(session, auth, parse_int_id(saved_query_id), body)
    if rows is None:
        return Response(status_code=204)
    payload = DataEnvelope(data=[PermissionView.of(row) for row in rows]).model_dump(mode="json")
    return JSONResponse(payload, status_code=201)


async def unshare_saved_query(saved_query_id: str, body: UnshareRequest, auth: CurrentAuth,
                              session: SessionDep) -> Response:
    await sharing.unshare(session, auth, parse_int_id(saved_query_id), body)
    return Response(status_code=204)


@answers(DataEnvelope[str])
async def import_saved_queries(request: Request, auth: CurrentAuth, session: SessionDep) -> Response:
    count = await service.import_queries(session, auth, request.headers.get("content-type"), await request.body())
    return JSONResponse({"data": f"imported {count} queries"}, status_code=201)


@answers_file("application/zip", binary=True)
async def export_saved_queries(auth: CurrentAuth, session: SessionDep, scope: Scope = None) -> Response:
    content = await service.export_zip(session, auth, scope)
    return Response(content, media_type="application/zip",
                    headers={"Content-Disposition": _attachment(EXPORT_ZIP_NAME)})


@answers(SavedQueryExport)
async def export_saved_query(saved_query_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    row = await service.get_visible(session, auth, parse_int_id(saved_query_id))
    return Response(service.transferable(row).to_json(), media_type="application/json",
                    headers={"Content-Disposition": _attachment(export_filename(row.name))})
