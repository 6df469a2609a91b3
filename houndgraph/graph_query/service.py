"""Running a user's Cypher query and shaping the answer as the reference's unified graph."""

from __future__ import annotations

from pathlib import Path

import psycopg
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit import service as audit_service
from houndgraph.audit.service import AuditAction, AuditedAction
from houndgraph.auth.context import AuthContext
from houndgraph.auth.permissions import P
from houndgraph.database_errors import data_error_message, is_query_canceled, refused_statement_message
from houndgraph.db import graph_connection, remaining_seconds, work_budget
from houndgraph.errors import BadRequest, Forbidden, InternalError, NotFound, ResponseTooLarge, ServiceError
from houndgraph.graph.budget import ResultTooLarge, WorkExhausted
from houndgraph.graph.cypher.ast import Query
from houndgraph.graph.cypher.errors import CypherError, MutationNotAllowed, runtime_error_message
from houndgraph.graph.cypher.execute import EntityKeys, Result, load_entities, run_query
from houndgraph.graph.cypher.parse_cache import parse_query
from houndgraph.graph.cypher.statement import graph_ids
from houndgraph.graph.cypher.translate.values import T
from houndgraph.graph.cypher.validate import has_mutation
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.graph.store.sql import WRITE_LOCK_ID
from houndgraph.graph_query import repository
from houndgraph.graph_query.literals import GRAPH_COLUMNS, LITERAL_COLUMNS, SCALAR_COLUMNS, Records, literal_value
from houndgraph.graph_query.schemas import (
    CypherQueryRequest,
    GraphAnswer,
    KindList,
    Literal,
    SourceKindList,
    SourceKindView,
)
from houndgraph.kit.graph_shapes import SHOWN_KEYS, edge_wire, node_wire
from houndgraph.kit.offload import lower_process_priority, off_loop, restore_process_priority
from houndgraph.pool_checkout import discard_after_use
from houndgraph.query_slots import QuerySlots

MUTATION_FORBIDDEN = "Permission denied: User may not modify the graph."
TIMED_OUT = "transaction timed out, reduce query complexity or try again later"
# Nodes, edges and rows past which an answer is shaped off the event loop (`kit.offload`): a few hundred take
# milliseconds, thousands hundreds of them.
LARGE_ANSWER = 500


def reads_only(text: str) -> bool:
    """Whether the query parses and has no updating clause (parsed once: `run_cypher` finds it in the cache)."""
    try:
        return not has_mutation(parse_query(text))
    except CypherError:
        return False


async def run_cypher(session: AsyncSession, auth: AuthContext, request: CypherQueryRequest, *,
                     mutations_enabled: bool, complexity_limit: bool = True,
                     request_id: str | None = None, slots: QuerySlots | None = None) -> GraphAnswer:
    try:
        query = parse_query(request.query)
    except CypherError as error:
        raise BadRequest(error.message) from error
    if not has_mutation(query):
        shown = _shown_keys(request.include_properties)
        result = (await _read_in_its_lane(session, query, complexity_limit, auth, slots, shown) if slots is not None
                  else await _run(session, query, False, complexity_limit, shown))
        graph = await _shaped(result, request.include_properties)
        if not graph.nodes and not graph.edges and not graph.literals:
            raise NotFound()
        return graph
    if not mutations_enabled:
        raise BadRequest(MutationNotAllowed().message)
    fields = {"query": request.query.strip()}
    if not auth.has(P.GRAPH_DB_MUTATE):
        await audit_service.unauthorized(session, auth, AuditAction.MUTATE_GRAPH, fields, request_id)
        raise Forbidden(MUTATION_FORBIDDEN)
    action = AuditedAction(auth, AuditAction.MUTATE_GRAPH, fields, request_id)
    await audit_service.begin(session, action)
    try:
        result = await _run(session, query, True, complexity_limit, _shown_keys(request.include_properties))
    except ServiceError as error:
        await audit_service.failed(session, action, error.message)
        raise
    await audit_service.succeeded(session, action)
    # Unlike a read, a mutation with nothing to show answers 200 with empty collections.
    return await _shaped(result, request.include_properties)


def _shown_keys(include_properties: bool) -> EntityKeys | None:
    """The entities' property keys an answer shows, when not all of them (`to_graph` without properties)."""
    return None if include_properties else SHOWN_KEYS


def _prints_entities(result: Result) -> bool:
    """Whether an answer's literals may print whole nodes or edges (a list or map column), properties included."""
    return any(kind in LITERAL_COLUMNS and kind not in SCALAR_COLUMNS for kind in result.types)


async def _run(session: AsyncSession, query: Query, allow_mutations: bool, complexity_limit: bool,
               shown: EntityKeys | None) -> Result:
    try:
        driver = await graph_connection(session)
        if allow_mutations:
            # Mutations serialise with ingest and analysis: their node caches assume no other writer.
            await driver.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_ID,))
        # A read is answered as a graph (to_graph): its rows' repetitions are never seen.
        result = await run_query(driver, query, allow_mutations=allow_mutations, complexity_limit=complexity_limit,
                                 budget=work_budget(session), as_graph=not allow_mutations, load_entities=False)
        await load_entities(driver, result, off_loop, None if _prints_entities(result) else shown)
        return result
    except CypherError as error:
        raise BadRequest(error.message) from error
    except WorkExhausted as error:
        raise InternalError(TIMED_OUT) from error
    except ResultTooLarge as error:
        raise ResponseTooLarge(str(error)) from error
    except (psycopg.Error, DBAPIError) as error:
        if is_query_canceled(error):
            raise InternalError(TIMED_OUT) from error
        if (message := runtime_error_message(error) or data_error_message(error)
                or refused_statement_message(error)) is not None:
            raise BadRequest(message) from error
        raise


async def _read_in_its_lane(session: AsyncSession, query: Query, complexity_limit: bool, auth: AuthContext,
                            slots: QuerySlots, shown: EntityKeys | None) -> Result:
    """A read that runs past `slots.probe_seconds` is long: it is stopped, waits for a long-query slot, and runs
    again from the start (`query_slots`). Short ones, nearly all, pay two statements more."""
    driver = await graph_connection(session)
    owner = QuerySlots.owner_key(auth.user_id)
    # A user whose reads were long lately probes at the lower priority their long reads run at.
    backend = driver.info.backend_pid
    before = (lower_process_priority(backend) if slots.long_lately(owner) and _is_local(driver, backend)
              else None)
    try:
        await repository.begin_probe(driver, min(slots.probe_seconds, remaining_seconds(session)))
        try:
            result = await _run(session, query, False, complexity_limit, shown)
        except InternalError as error:
            if not is_query_canceled(error) or work_budget(session).expired():
                raise
        else:
            await repository.end_probe(driver, remaining_seconds(session))
            return result
        slots.found_long(owner)
        await repository.end_failed_probe(driver)
    finally:
        if before is not None and not restore_process_priority(backend, before):
            await discard_after_use(session)
    slot = await _wait_for_long_slot(session, driver, slots, auth)
    # A backend of this host runs it at a lower CPU priority, so short requests' backends come first for a core.
    before = lower_process_priority(slot.backend_pid) if _is_local_backend(slot) else None
    try:
        return await _run(session, query, False, complexity_limit, shown)
    finally:
        if before is not None and not restore_process_priority(slot.backend_pid, before):
            await discard_after_use(session)


async def _wait_for_long_slot(session: AsyncSession, driver: psycopg.AsyncConnection, slots: QuerySlots,
                              auth: AuthContext) -> repository.LongSlot:
    """The user's long turn and a service slot, waited for in line while the query could still finish: its probe
    showed it needs more than `slots.probe_seconds`, so a turn with less left would only spend a core until the
    deadline. With less than that left already, it ran out of time; no turn in time is a refusal for room (429),
    not a query that ran out of time: it never ran past its probe."""
    patience = remaining_seconds(session) - slots.probe_seconds
    if patience <= 0:
        raise InternalError(TIMED_OUT)
    slot = await repository.wait_for_long_slot(driver, QuerySlots.owner_key(auth.user_id), slots.long_queries,
                                               patience)
    # A turn granted late (the lock's wait is timed by a backend that may reach the CPU after its line moved) is
    # no turn in time either: the query would only run into its deadline.
    if slot is None or remaining_seconds(session) < slots.probe_seconds:
        raise QuerySlots.no_long_turn()
    return slot


def _is_local(driver: psycopg.AsyncConnection, pid: int) -> bool:
    """Whether the connection's backend is a PostgreSQL process of this host: reached over a Unix socket or loopback
    (told by the connection, without a statement) and a postgres process of that number here."""
    host = driver.info.host
    if not (host.startswith("/") or host in ("localhost", "127.0.0.1", "::1")):
        return False
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"postgres")
    except OSError:
        return False


def _is_local_backend(slot: repository.LongSlot) -> bool:
    """Whether the slot's backend is a PostgreSQL process of this host (not a process of that number in another
    host or container)."""
    try:
        return slot.local_backend and Path(f"/proc/{slot.backend_pid}/cmdline").read_bytes().startswith(b"postgres")
    except OSError:
        return False


async def _shaped(result: Result, include_properties: bool) -> GraphAnswer:
    if len(result.nodes) + len(result.edges) + len(result.rows) > LARGE_ANSWER:
        return await off_loop(to_graph, result, include_properties)
    return to_graph(result, include_properties)


def is_large(graph: GraphAnswer) -> bool:
    """Whether writing `graph` out is work for a background thread (`kit.offload`)."""
    return len(graph.nodes) + len(graph.edges) + len(graph.literals) > LARGE_ANSWER


def to_graph(result: Result, include_properties: bool) -> GraphAnswer:
    """The rows' nodes, relationships and paths as the graph, every other value as a literal (literals.py)."""
    edge_rows = [row for _, row in sorted(result.edges.items())]
    node_rows = [row for _, row in sorted(result.nodes.items())]
    if _prints_entities(result):
        # Some entities were loaded for the literals (lists, maps) only: the graph is those of the graph columns.
        node_ids, edge_ids = graph_ids(result.rows, [kind if kind in GRAPH_COLUMNS else T.JSON
                                                     for kind in result.types])
        edge_rows = [row for row in edge_rows if row.id in edge_ids]
        node_ids.update(end for row in edge_rows for end in (row.start_id, row.end_id))
        node_rows = [row for row in node_rows if row.id in node_ids]
    nodes = {str(row.id): node_wire(row, include_properties) for row in node_rows}
    edges = [edge_wire(row, include_properties) for row in edge_rows]
    records = Records(result.nodes, result.edges)
    scalars = [(index, name, kind) for index, (name, kind) in enumerate(zip(result.columns, result.types, strict=True))
               if kind in LITERAL_COLUMNS]
    literals = [Literal(key=name, value=literal_value(row[index], kind, records))
                for row in result.rows for index, name, kind in scalars]
    graph = GraphAnswer(nodes=nodes, edges=edges, literals=literals)
    if include_properties:
        node_keys = sorted({key for row in node_rows for key in row.properties})
        edge_keys = sorted({key for row in edge_rows for key in row.properties})
        graph.node_keys = node_keys or None
        graph.edge_keys = edge_keys or None
    return graph


# Not a kind of its own: the id clear-database takes for nodes of no source kind, listed as the reference does.
SOURCELESS = SourceKindView(id=0, name="Sourceless")


async def list_kinds(session: AsyncSession) -> KindList:
    return KindList(kinds=sorted(await kind_map(await graph_connection(session))))


async def list_source_kinds(session: AsyncSession) -> SourceKindList:
    kinds = [SourceKindView(id=kind.id, name=kind.name) for kind in await repository.active_source_kinds(session)]
    return SourceKindList(kinds=[*kinds, SOURCELESS])
