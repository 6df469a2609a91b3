"""Saved queries: who may see, change and delete them (reference/behaviour.md §15), listing with scopes,
import and export. Sharing itself is in `sharing.py`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.errors import BadRequest, Conflict, Forbidden, NotFound
from houndgraph.graph.cypher.errors import CypherError, UnsupportedCypher
from houndgraph.graph.cypher.parser import parse as parse_cypher
from houndgraph.kit.filters import (
    where,
)
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import ListQuery
from houndgraph.kit.repository import get_or_404
from houndgraph.kit.sorting import order_by
from houndgraph.models import SavedQuery
from houndgraph.saved_query import repository
from houndgraph.saved_query.listing import SAVED_QUERIES
from houndgraph.saved_query.schemas import SavedQueryRequest
from houndgraph.saved_query.transfer import (
    EMPTY_FIELDS,
    JSON_TYPES,
    ZIP_TYPES,
    TransferableQuery,
    media_type,
    parse_query_file,
    parse_query_zip,
    write_zip,
)

QUERY_DOES_NOT_EXIST = "query does not exist"
DUPLICATE_NAME = "duplicate name for saved query: please choose a different name"
CANNOT_DELETE = "User does not have permission to delete this query"
INVALID_SCOPE = "invalid scope param"
INVALID_CYPHER = "invalid cypher query"
DEFAULT_LIMIT = 10_000

SCOPE_OWNED, SCOPE_SHARED, SCOPE_PUBLIC, SCOPE_ALL = "owned", "shared", "public", "all"



def is_duplicate_name(error: IntegrityError) -> bool:
    diag = getattr(error.orig, "diag", None)
    return getattr(diag, "constraint_name", None) == "uq_saved_queries_user_id"


async def _insert(session: AsyncSession, rows: list[SavedQuery]) -> None:
    try:
        await repository.add(session, rows)
    except IntegrityError as error:
        if is_duplicate_name(error):
            raise Conflict(DUPLICATE_NAME) from None
        raise


def check_cypher(query: str, source: str = "") -> None:
    """Refuse text the Cypher engine cannot parse. A construct it parses but cannot run yet
    (`UnsupportedCypher`) is kept: the query is valid and a later version may run it."""
    try:
        parse_cypher(query)
    except UnsupportedCypher:
        return
    except CypherError as error:
        where = f" in {source}" if source else ""
        raise BadRequest(f"{INVALID_CYPHER}{where}: {error.message}") from None


async def create(session: AsyncSession, auth: AuthContext, body: SavedQueryRequest) -> SavedQuery:
    if not body.name or not body.query:
        raise BadRequest(EMPTY_FIELDS)
    check_cypher(body.query)
    row = SavedQuery(user_id=auth.user_id, name=body.name, query=body.query, description=body.description)
    await _insert(session, [row])
    return row


async def _existing(session: AsyncSession, query_id: int) -> SavedQuery:
    return get_or_404(await repository.get(session, query_id), QUERY_DOES_NOT_EXIST)


async def can_read(session: AsyncSession, auth: AuthContext, row: SavedQuery) -> bool:
    """Owned, shared to the caller, or public. Being an administrator does not widen reading."""
    return (row.user_id == auth.user_id or await repository.is_shared_to(session, row.id, auth.user_id)
            or await repository.is_public(session, row.id))


async def get_visible(session: AsyncSession, auth: AuthContext, query_id: int) -> SavedQuery:
    row = await _existing(session, query_id)
    if not await can_read(session, auth, row):
        raise NotFound(QUERY_DOES_NOT_EXIST)
    return row


async def update(session: AsyncSession, auth: AuthContext, query_id: int, body: SavedQueryRequest) -> SavedQuery:
    """The owner may change a query; an administrator may change a public one. Others are told it does not
    exist, so that private queries stay invisible."""
    row = await _existing(session, query_id)
    if row.user_id != auth.user_id and not (auth.is_administrator and await repository.is_public(session, row.id)):
        raise NotFound(QUERY_DOES_NOT_EXIST)
    if body.query:
        check_cypher(body.query)
        row.query = body.query
    if body.name:
        row.name = body.name
    if body.description:
        row.description = body.description
    try:
        await repository.save(session, row)
    except IntegrityError as error:
        if is_duplicate_name(error):
            raise Conflict(DUPLICATE_NAME) from None
        raise
    return row


async def delete(session: AsyncSession, auth: AuthContext, query_id: int) -> None:
    row = await _existing(session, query_id)
    if row.user_id != auth.user_id and not (auth.is_administrator and await repository.is_public(session, row.id)):
        raise Forbidden(CANNOT_DELETE)
    await repository.delete_query(session, query_id)


@dataclass(frozen=True, slots=True)
class QueryListing:
    items: list[tuple[SavedQuery, str]]
    count: int
    page: Page


def parse_scopes(raw: str) -> list[str]:
    """`owned,shared,public` in any case and order; `all` stands for the three. Labels stay as given."""
    scopes: list[str] = []
    for part in raw.split(","):
        label = part.strip()
        match label.lower():
            case "owned" | "shared" | "public":
                scopes.append(label)
            case "all":
                scopes.extend([SCOPE_OWNED, SCOPE_SHARED, SCOPE_PUBLIC])
            case _:
                raise BadRequest(INVALID_SCOPE)
    return scopes


async def list_owned(session: AsyncSession, auth: AuthContext, query: ListQuery, page: Page
                     ) -> tuple[list[tuple[Any, ...]], int]:
    """The caller's own queries (the list without `scope`), paged in SQL: rows of `repository.LISTED_COLUMNS`
    and the count."""
    return await repository.list_owned_rows(session, auth.user_id, where(query.filters, SAVED_QUERIES.expressions),
                                            order_by(query.sort, SAVED_QUERIES.expressions), page.skip, page.limit)


async def list_queries(session: AsyncSession, auth: AuthContext, query: ListQuery, page: Page,
                       scope: str) -> QueryListing:
    """The parts of each scope one after the other (a query may appear once per scope, tagged with it),
    filtered and sorted alike, then paged. Without a scope the list is `list_owned`."""
    condition = where(query.filters, SAVED_QUERIES.expressions)
    order = order_by(query.sort, SAVED_QUERIES.expressions)
    items: list[tuple[SavedQuery, str]] = []
    for label in parse_scopes(scope):
        match label.lower():
            case "owned":
                rows = await repository.list_owned(session, auth.user_id, condition, order)
            case "shared":
                rows = await repository.list_shared_to(session, auth.user_id, condition, order)
            case _:
                rows = await repository.list_public(session, condition, order)
        items.extend((row, label) for row in rows)
    return QueryListing(items[page.skip:page.skip + page.limit], len(items), page)


async def import_queries(session: AsyncSession, auth: AuthContext, content_type: str | None, body: bytes) -> int:
    """A JSON file or a zip of them, all or nothing: one bad file or taken name stores none."""
    kind = media_type(content_type)
    if kind in JSON_TYPES:
        queries = [parse_query_file(body)]
    elif kind in ZIP_TYPES:
        queries = parse_query_zip(body)
    else:
        raise BadRequest(f"invalid content-type: [{content_type or ''}]; "
                         "Content type must be application/json or application/zip")
    for query in queries:
        check_cypher(query.query, query.name)
    rows = [SavedQuery(user_id=auth.user_id, name=q.name, query=q.query, description=q.description)
            for q in queries]
    if rows:
        await _insert(session, rows)
    return len(rows)


def transferable(row: SavedQuery) -> TransferableQuery:
    return TransferableQuery(row.name, row.query, row.description)


async def export_zip(session: AsyncSession, auth: AuthContext, scope: str | None) -> bytes:
    if not scope:
        raise BadRequest("scope query parameter cannot be empty")
    match scope.lower():
        case "all":
            rows = await repository.list_visible(session, auth.user_id)
        case "public":
            rows = await repository.list_public(session, None, [])
        case "shared":
            rows = await repository.list_shared_to(session, auth.user_id, None, [])
        case "owned":
            rows = await repository.list_owned(session, auth.user_id, None, [])
        case _:
            raise BadRequest(f"{INVALID_SCOPE}: {scope}")
    return write_zip(transferable(row) for row in rows)
