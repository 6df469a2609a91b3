"""How a row of the route table becomes a route: who may call it (its guard), what it checks before any
parsing (`HoundRoute`), its audit entry, its graph-query slot and whether the read replica may serve it.

The table itself, every route with its permission, is `houndgraph.api.ROUTES`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Final

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.routing import APIRoute

from houndgraph.audit.dependencies import audit_trail
from houndgraph.audit.service import AuditAction as A
from houndgraph.auth.dependencies import (
    client_guard,
    client_or_permission_guard,
    graph_query_slot,
    graph_search_slot,
    permission_guard,
)
from houndgraph.auth.permissions import P
from houndgraph.database_errors import connection_lost
from houndgraph.deps import GRAPH_READ_STATE, ON_REPLICA_STATE
from houndgraph.errors import Unauthorized
from houndgraph.kit.answers import route_options
from houndgraph.kit.json_limits import check_json_text, check_query_string
from houndgraph.rendering import ErrorBody


class _Public:
    def __repr__(self) -> str:
        return "PUBLIC"


class _ClientOnly:
    def __repr__(self) -> str:
        return "CLIENT"


@dataclass(frozen=True)
class ClientOr:
    """A route a collection client calls with its own token, and a user holding `permission` too."""

    permission: P


PUBLIC: Final = _Public()
AUTHENTICATED: Final = None
# Routes only a collection client may call (signed with its own token); users get 404 there.
CLIENT: Final = _ClientOnly()


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    endpoint: Callable[..., Any]
    permission: P | _Public | _ClientOnly | ClientOr | None
    status_code: int = 200
    deprecated: bool = False
    # The handler reads the raw body as a stream (uploads): signature checks spool it to disk.
    streams_body: bool = False
    # The reference answers some routes' undecodable JSON with their own message.
    malformed_json_message: str | None = None
    # Security-relevant routes write an audit entry with their outcome.
    audit: A | None = None
    # A graph query that may run long (Cypher): counted against the caller's cap (`query_slots`).
    graph_query: bool = False
    # Path finding or search: counted against the caller's cap and the service's (`query_slots`).
    graph_search: bool = False
    # A read of the graph that writes nothing: the read replica may serve it (`read_replica`). A function decides
    # per request (a Cypher query without an updating clause).
    reads_graph: bool | Callable[[Request], Awaitable[bool]] = False


class HoundRoute(APIRoute):
    """An APIRoute that remembers what the table said about it, and checks what needs no parsing first:
    NUL characters in the URL, a missing credential (401 before any complaint about the body), then the
    raw JSON body's nesting and NUL characters."""

    permission: P | _Public | _ClientOnly | ClientOr | None = AUTHENTICATED
    streams_body: bool = False
    malformed_json_message: str | None = None
    reads_graph: bool | Callable[[Request], Awaitable[bool]] = False

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            check_query_string(request.scope.get("query_string", b""))
            check_query_string(request.scope.get("raw_path", b""))
            if not isinstance(self.permission, _Public) and not request.headers.get("authorization"):
                raise Unauthorized()
            if not self.streams_body and _may_be_json(request.headers.get("content-type")):
                body = await request.body()
                if body:
                    check_json_text(body)
            reads = self.reads_graph
            setattr(request.state, GRAPH_READ_STATE, reads if isinstance(reads, bool) else await reads(request))
            try:
                return await handler(request)
            except Exception as error:
                if not (getattr(request.state, ON_REPLICA_STATE, False) and connection_lost(error)):
                    raise
            # The replica went away under this read (stopped, restarted): the primary answers it instead.
            replica = request.app.state.database.read_replica
            if replica is not None:
                replica.pass_over("a read lost its connection to it")
            setattr(request.state, GRAPH_READ_STATE, False)
            setattr(request.state, ON_REPLICA_STATE, False)
            return await handler(request)

        return guarded


def _may_be_json(content_type: str | None) -> bool:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return not media_type or media_type.endswith("json")


def graph_reads(*routes: Route) -> list[Route]:
    return [replace(route, reads_graph=True) for route in routes]


def _guard(permission: P | _ClientOnly | ClientOr | None) -> Callable[..., Any]:
    if isinstance(permission, _ClientOnly):
        return client_guard
    if isinstance(permission, ClientOr):
        return client_or_permission_guard(permission.permission)
    return permission_guard(permission)


# Every failure a route answers carries the reference's error body (houndgraph.rendering), a bad request
# included: FastAPI's own 422 and its validation body are never sent.
FAILURES: Final = {
    "4XX": {"model": ErrorBody, "description": "The request was refused (the reference's error body)."},
    "5XX": {"model": ErrorBody, "description": "The service failed or gave up (the reference's error body)."},
}


def register_routes(router: APIRouter, routes: Sequence[Route]) -> None:
    """Add the table's routes to `router` (the app's own: an included router would lose our attributes).

    FastAPI's analysis of the endpoints' signatures and models takes about 0.7 s of CPU; the routes it yields hold
    nothing of one app (a handler reaches its app through the request), so a process builds them once and every
    app it makes gets the same objects (the service makes one app per process; the tests make dozens). The cost:
    built on an app of their own, the routes never consult `app.dependency_overrides` (the service sets none)."""
    router.routes.extend(_built(tuple(routes)))


@cache
def _built(routes: tuple[Route, ...]) -> tuple[HoundRoute, ...]:
    router = FastAPI(openapi_url=None, docs_url=None, redoc_url=None).router
    for route in routes:
        dependencies = [] if isinstance(route.permission, _Public) else [Depends(_guard(route.permission))]
        if route.audit is not None:
            dependencies.append(Depends(audit_trail(route.audit), scope="function"))
        if route.graph_query:
            dependencies.append(Depends(graph_query_slot, scope="function"))
        if route.graph_search:
            dependencies.append(Depends(graph_search_slot, scope="function"))
        router.add_api_route(
            route.path, route.endpoint, methods=[route.method], status_code=route.status_code,
            dependencies=dependencies, deprecated=route.deprecated or None, route_class_override=HoundRoute,
            **route_options(route.endpoint, route.status_code, FAILURES),
        )
        added = router.routes[-1]
        assert isinstance(added, HoundRoute)
        added.permission = route.permission
        added.streams_body = route.streams_body
        added.malformed_json_message = route.malformed_json_message
        added.reads_graph = route.reads_graph
    return tuple(route for route in router.routes if isinstance(route, HoundRoute))
