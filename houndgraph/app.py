"""The composition root: settings, the database, the route table, middleware and error rendering."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import PlainTextResponse, Response

from houndgraph import __version__
from houndgraph.api import ROUTES
from houndgraph.auth import passwords
from houndgraph.auth.cache import AuthCache
from houndgraph.auth.pace import AddressPace
from houndgraph.auth.passwords import PasswordPool
from houndgraph.auth.policy import AuthPolicy
from houndgraph.config import service as config_service
from houndgraph.database_errors import connection_lost, data_error_message, is_query_canceled
from houndgraph.db import Database, graph_connection, work_budget
from houndgraph.deadline import InFlight, RequestDeadline
from houndgraph.docs import install_docs
from houndgraph.errors import (
    DATABASE_UNREACHABLE,
    JSON_UNMARSHAL,
    BadRequest,
    InternalError,
    RequestTimedOut,
    ServiceError,
    ServiceUnavailable,
)
from houndgraph.extension.builtin import ensure_builtin_extensions
from houndgraph.graph.cypher.execute import run_query
from houndgraph.graph.paths import pair_paths
from houndgraph.graph.projection.store import PROJECTION_DIRECTORY, ProjectionStore
from houndgraph.kit.responses import JSONResponse
from houndgraph.middleware import JSON_BODY_LIMIT, RequestContextMiddleware
from houndgraph.observability import ObservabilityMiddleware, metrics
from houndgraph.query_slots import QuerySlots
from houndgraph.record_writer import RecordWriter
from houndgraph.rendering import error_body, render_error_bytes
from houndgraph.routing import HoundRoute, register_routes
from houndgraph.settings import Settings
from houndgraph.ui.serving import mount_ui
from houndgraph.user.bootstrap import ensure_admin
from houndgraph.worker.loop import Datapipe

log = logging.getLogger("houndgraph")
OPENAPI_URL = "/api/openapi.json"

# What Go's http.NotFound writes, content type `text/plain; charset=utf-8`.
NO_ROUTE_BODY = "404 page not found\n"


def prepare_database(settings: Settings, database: Database) -> None:
    """Migrations, the first administrator and the built-in schema extensions; runs at every start, keeps existing
    data."""
    database.migrate()
    with Session(database.sync_engine) as session, session.begin():
        admin_password = settings.admin_password.get_secret_value() if settings.admin_password else None
        result = ensure_admin(session, admin_password)
        ensure_builtin_extensions(session)
    if result.generated_password:
        # Printed once, on the console only: never to the log.
        print(
            "\n  houndgraph created the user 'admin' with this password (shown once, change it at first login):\n"
            f"    {result.generated_password}\n",
            file=sys.stderr, flush=True,
        )


# A warm-up that has not ended by then is given up (its statements are cancelled).
WARM_UP_SECONDS = 30
WARM_UP_QUERY = "MATCH (n:Base) RETURN n LIMIT 1"


async def warm_up(database: Database) -> None:
    """Run a small Cypher query and a path search once, as the process starts: the first graph query of a
    process otherwise pays for what Python and the database load once (the Cypher parser's tables, the kind
    catalogue and statistics, the searches' statements), about a third of a second. Harmless on an empty
    graph; a failure is logged and forgotten."""
    try:
        async with database.session(RequestDeadline(WARM_UP_SECONDS)) as session:
            conn = await graph_connection(session)
            result = await run_query(conn, WARM_UP_QUERY, budget=work_budget(session))
            cursor = await conn.execute("SELECT start_id, end_id FROM edge WHERE start_id <> end_id LIMIT 1")
            if (edge := await cursor.fetchone()) is not None:
                await pair_paths(conn, edge[0], edge[1], kind_ids=None, budget=work_budget(session))
        log.debug("warmed up: %d row(s)", len(result.rows))
    except Exception:  # noqa: BLE001 - a warm-up never stops the service
        log.info("warm-up query failed", exc_info=True)


def _error_response(request: Request, error: ServiceError) -> JSONResponse:
    request_id = getattr(request.state, "request_id", "")
    return JSONResponse(error_body(int(error.status), error.messages, request_id),
                          status_code=int(error.status), headers=error.headers or None)


def _validation_message(request: Request, error: RequestValidationError) -> str:
    route: Any = request.scope.get("route")
    problems = error.errors()
    if any(problem.get("type") == "json_invalid" for problem in problems):
        return getattr(route, "malformed_json_message", None) or JSON_UNMARSHAL
    first = problems[0] if problems else {}
    location = [str(part) for part in first.get("loc", ()) if part != "body"]
    if first.get("loc", ("",))[0] == "body":
        if first.get("type") == "missing" and location:
            return f"missing required field: {'.'.join(location)}"
        if not location:
            return getattr(route, "malformed_json_message", None) or JSON_UNMARSHAL
        return f"{JSON_UNMARSHAL}: {'.'.join(location)}: {first.get('msg', 'invalid value')}"
    where = ".".join(location) or "request"
    return f"there are errors in the query parameters: {where}: {first.get('msg', 'invalid value')}"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> JSONResponse:
        return _error_response(request, error)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if isinstance(error.__cause__, ServiceError):
            # FastAPI wraps failures while reading a body (e.g. the size cap) in a 400; keep ours.
            return _error_response(request, error.__cause__)
        if error.status_code == 404:
            # No route matches (handlers raise our own NotFound): the reference's router answers with Go's
            # plain-text not-found page, which clients use to tell "no such route" from "no result".
            return PlainTextResponse(NO_ROUTE_BODY, status_code=404, headers={"X-Content-Type-Options": "nosniff"})
        if error.status_code == 405:
            # The route exists for other methods: the reference's router answers 405 with an empty body.
            return Response(status_code=405)
        wrapped = ServiceError(str(error.detail))
        wrapped.status = error.status_code
        return _error_response(request, wrapped)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error_response(request, BadRequest(_validation_message(request, error)))

    # Statements sent on the driver's connection (graph searches, `db.graph_connection`) raise psycopg's own
    # errors, not SQLAlchemy's wrapper of them: both are answered alike, a cancelled statement as a timeout.
    @app.exception_handler(DBAPIError)
    @app.exception_handler(psycopg.Error)
    async def database_error(request: Request, error: Exception) -> JSONResponse:
        if is_query_canceled(error):
            return _error_response(request, RequestTimedOut())
        if connection_lost(error):
            # Not the request's failure: the health check answers 503 for it too, and clients retry a 503.
            log.warning("the database is unreachable (request %s): %s", getattr(request.state, "request_id", ""),
                        type(error).__name__)
            return _error_response(request, ServiceUnavailable(DATABASE_UNREACHABLE))
        if (message := data_error_message(error)) is not None:
            return _error_response(request, BadRequest(message))
        log.exception("database error (request %s)", getattr(request.state, "request_id", ""))
        return _error_response(request, InternalError())


def _upload_path_patterns(app: FastAPI) -> list[re.Pattern[str]]:
    patterns = []
    for route in app.routes:
        if isinstance(route, HoundRoute) and route.streams_body:
            patterns.append(re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", route.path) + "$"))
    return patterns


def create_app(settings: Settings | None = None, database: Database | None = None) -> FastAPI:
    settings = settings or Settings()
    settings.check()
    settings.signing_key()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The process hashes passwords at this app's cost from its start, not from its making: an app made only to
        # describe itself (`houndgraph openapi`, a test of the document) must not change the cost of the process's
        # running service.
        passwords.configure(settings)
        own_database = database is None
        db = database or Database.open(settings)
        prepare_database(settings, db)
        if settings.path_projection:
            db.edge_projections = ProjectionStore(settings.data_dir / PROJECTION_DIRECTORY, db.connect_raw)
        app.state.database = db
        app.state.password_pool = PasswordPool(settings.password_hash_workers)
        app.state.record_writer = RecordWriter(db.async_engine.url)
        app.state.address_pace = AddressPace(settings.login_paced_attempt_seconds)
        app.state.graph_query_slots = QuerySlots(settings.graph_queries_per_user,
                                                  long_queries=settings.long_graph_queries,
                                                  probe_seconds=settings.long_graph_query_seconds,
                                                  searches=settings.graph_searches)
        datapipe = app.state.datapipe = Datapipe(settings, db).start()
        warming = asyncio.get_running_loop().create_task(warm_up(db)) if settings.warm_up else None
        # What the process holds once started (modules, the route table, the Cypher parser's tables) stays for
        # good: kept out of the garbage collector, whose full collections would otherwise walk it all, one of
        # them in the first requests (a pause of about 200 ms) and more under load.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
            # Requests still at work stop their database work rather than hold up the shutdown.
            in_flight.cancel_all()
            await run_in_threadpool(datapipe.stop)
            if db.edge_projections is not None:
                await run_in_threadpool(db.edge_projections.close)
                db.edge_projections = None
            app.state.password_pool.close()
            await app.state.record_writer.close()
            await db.dispose()
            if own_database:
                db.close()

    app = FastAPI(
        title="houndgraph", version=__version__, lifespan=lifespan,
        openapi_url=OPENAPI_URL, docs_url=None, redoc_url=None,
        description="Attack-path analysis for Active Directory and Azure; the BloodHound CE API (v2).",
    )
    app.state.settings = settings
    # The requests being served; `houndgraph serve` cancels their database work when shutdown begins.
    in_flight = app.state.in_flight = InFlight()
    # Credentials this process has checked (houndgraph.auth.cache), valid while the cache generation holds.
    app.state.auth_cache = AuthCache()
    # What the authentication kernel reads from the domains above it (houndgraph.auth.policy).
    app.state.auth_policy = AuthPolicy(api_tokens_enabled=config_service.api_tokens_enabled)
    register_routes(app.router, ROUTES)
    install_docs(app, OPENAPI_URL)
    mount_ui(app.router)
    install_error_handlers(app)
    upload_patterns = _upload_path_patterns(app)

    def body_limit_for(path: str) -> int:
        if any(pattern.match(path) for pattern in upload_patterns):
            return settings.max_upload_bytes
        return JSON_BODY_LIMIT

    app.add_middleware(RequestContextMiddleware, render_error=render_error_bytes, body_limit_for=body_limit_for,
                       request_timeout=settings.request_timeout_seconds,
                       response_limit=settings.max_response_bytes, in_flight=in_flight)
    # Outermost: it times and logs whatever the inner layers answer, request id included.
    app.add_middleware(ObservabilityMiddleware)
    app.add_route("/metrics", metrics, include_in_schema=False)
    return app
