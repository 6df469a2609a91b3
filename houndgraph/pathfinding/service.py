"""Shortest paths between two principals (GET /graphs/shortest-path and the deprecated /pathfinding),
relay targets (GET /graphs/relay-targets; reference/behaviour.md §7 and §12), and where an inherited ACE comes
from (GET /graphs/acl-inheritance)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import edge_projection, graph_connection, work_budget
from houndgraph.errors import BadRequest, NotFound, RequestTimedOut
from houndgraph.extension import service as extension_service
from houndgraph.graph import lookup
from houndgraph.graph.budget import WorkExhausted
from houndgraph.graph.kinds import (
    AD_TRAVERSABLE_EDGES,
    AZ_TRAVERSABLE_EDGES,
    KNOWN_EDGE_KINDS,
    ADEdge,
)
from houndgraph.graph.paths import edges_between
from houndgraph.graph.rows import EntityKeys
from houndgraph.kit.graph_shapes import SHOWN_KEYS, UnifiedGraph, bh_graph, unified_graph, unified_wire
from houndgraph.pathfinding import repository

PATH_NOT_FOUND = "path not found"
KINDS_FORMAT = ("invalid query parameter 'relationship_kinds': acceptable values should match the format: "
                "in|nin:Kind1,Kind2")
NO_EDGES = "invalid parameter combination; no valid edges to traverse"
TRAVERSABLE = frozenset(AD_TRAVERSABLE_EDGES) | frozenset(AZ_TRAVERSABLE_EDGES)
COMPOSITE_EDGES = frozenset({
    ADEdge.ADCSESC1, ADEdge.ADCSESC3, ADEdge.ADCSESC4, ADEdge.ADCSESC6a, ADEdge.ADCSESC6b, ADEdge.ADCSESC9a,
    ADEdge.ADCSESC9b, ADEdge.ADCSESC10a, ADEdge.ADCSESC10b, ADEdge.ADCSESC13, ADEdge.GoldenCert,
    ADEdge.CoerceAndRelayNTLMToADCS, ADEdge.CoerceAndRelayNTLMToSMB, ADEdge.CoerceAndRelayNTLMToLDAP,
    ADEdge.CoerceAndRelayNTLMToLDAPS,
})
COMPOSITION_PARTS = frozenset({
    ADEdge.MemberOf, ADEdge.Enroll, ADEdge.GenericAll, ADEdge.GenericWrite, ADEdge.AllExtendedRights,
    ADEdge.WriteDacl, ADEdge.WriteOwner, ADEdge.Owns, ADEdge.PublishedTo, ADEdge.IssuedSignedBy,
    ADEdge.EnterpriseCAFor, ADEdge.RootCAFor, ADEdge.NTAuthStoreFor, ADEdge.TrustedForNTAuth,
    ADEdge.HostsCAService, ADEdge.ManageCA, ADEdge.ManageCertificates, ADEdge.ExtendedByPolicy,
    ADEdge.OIDGroupLink, ADEdge.DCFor, ADEdge.AdminTo, ADEdge.CanRDP, ADEdge.Contains,
})
COMPOSITION_DEPTH = 8


def missing(name: str) -> str:
    return f"Missing query parameter: {name}"


def edge_kinds(relationship_kinds: str | None, only_traversable: bool, uploaded: frozenset[str] = frozenset()
               ) -> set[str]:
    """The kinds a shortest-path search follows: the built-in kinds (the traversable ones when asked) and the
    edge kinds uploaded extensions declare (`uploaded`, already only the traversable ones when asked), narrowed by
    an `in:`/`nin:` list. As in the reference, a listed built-in kind outside that set is ignored, and any other
    unknown kind refused."""
    acceptable = (TRAVERSABLE if only_traversable else KNOWN_EDGE_KINDS) | uploaded
    selected: set[str] = set(acceptable)
    if relationship_kinds:
        operator, _, listed = relationship_kinds.partition(":")
        names = [name.strip() for name in listed.split(",") if name.strip()]
        if operator not in ("in", "nin") or not names:
            raise BadRequest(KINDS_FORMAT)
        unknown = [name for name in names if name not in KNOWN_EDGE_KINDS | uploaded]
        if unknown:
            raise BadRequest("invalid query parameter 'relationship_kinds': acceptable relationship kinds are: "
                             f"[{' '.join(sorted(KNOWN_EDGE_KINDS | uploaded))}]")
        named = set(names) & acceptable
        selected = named if operator == "in" else set(acceptable - named)
    if not selected:
        raise BadRequest(NO_EDGES)
    return selected


async def _paths(session: AsyncSession, start_oid: str, end_oid: str, kind_names: set[str] | None, *,
                 keys: EntityKeys | None = None) -> tuple[list[Any], list[Any]] | None:
    conn = await graph_connection(session)
    kind_ids: Sequence[int] | None = None
    if kind_names is not None:
        kinds = await lookup.kind_ids(conn)
        kind_ids = sorted(kinds.ids[name] for name in kind_names if name in kinds.ids)
    try:
        if (search := edge_projection(session)) is not None:
            return await repository.pair_path_graph_in_memory(conn, search, start_oid, end_oid, kind_ids,
                                                              work_budget(session), keys=keys)
        return await repository.pair_path_graph(conn, start_oid, end_oid, kind_ids, work_budget(session))
    except WorkExhausted as error:
        raise RequestTimedOut() from error


async def shortest_path(session: AsyncSession, start: str, end: str, relationship_kinds: str | None,
                        only_traversable: bool) -> dict[str, Any]:
    """The unified graph of every shortest path, as its answer writes it (`graph_shapes.unified_wire`, no
    properties)."""
    uploaded = await extension_service.uploaded_edge_kinds(session, only_traversable)
    kinds = edge_kinds(relationship_kinds, only_traversable, uploaded)
    found = await _paths(session, start, end, kinds, keys=SHOWN_KEYS)
    if not found or not found[1]:
        raise NotFound(PATH_NOT_FOUND)
    return unified_wire(found[0], found[1], include_properties=False)


async def pathfinding(session: AsyncSession, start: str, end: str) -> dict[str, Any]:
    """All shortest paths over any edge kind, as the legacy graph map; no path is an empty map."""
    found = await _paths(session, start, end, None)
    return bh_graph(*found) if found else {}


def _one(values: Sequence[str], name: str) -> str:
    if not values or not values[0]:
        raise BadRequest(f"Expected {name} parameter to be set.")
    if len(values) > 1:
        raise BadRequest(f"Expected only one {name}.")
    return str(values[0])


def _graph_id(raw: str, what: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"Invalid value for {what}: {raw}") from None
    if not -(2**31) <= value < 2**31:  # the reference parses them as 32-bit integers
        raise BadRequest(f"Invalid value for {what}: {raw}")
    return value


async def _existing_edge(session: AsyncSession, edge_types: Sequence[str], sources: Sequence[str],
                         targets: Sequence[str]) -> tuple[str, int, int]:
    """The edge the parameters name (each as sent, all its values: exactly one of each is expected)."""
    kind = _one(edge_types, "edge_type")
    source, target = _one(sources, "source_node"), _one(targets, "target_node")
    if kind not in KNOWN_EDGE_KINDS:
        raise BadRequest(f"Invalid edge requested: {kind}")
    start, end = _graph_id(source, "startID"), _graph_id(target, "endID")
    conn = await graph_connection(session)
    if not await repository.edge_exists(conn, start, kind, end, await lookup.kind_ids(conn)):
        raise BadRequest(f"Could not find edge matching criteria: no {kind} relationship from {start} to {end}")
    return kind, start, end


async def relay_targets(session: AsyncSession, edge_types: Sequence[str], sources: Sequence[str],
                        targets: Sequence[str]) -> UnifiedGraph:
    kind, start, end = await _existing_edge(session, edge_types, sources, targets)
    conn = await graph_connection(session)
    relays = await repository.relay_targets(conn, kind, start, end, await lookup.kind_ids(conn))
    return unified_graph(await lookup.nodes_by_id(conn, relays), [], include_properties=True)


async def edge_composition(session: AsyncSession, edge_types: Sequence[str], sources: Sequence[str],
                           targets: Sequence[str]) -> UnifiedGraph:
    """The nodes and edges that make up a composite edge (ADCS ESC*, GoldenCert, CoerceAndRelay*): the walks
    from its start to its end over the edges such attacks are built of (membership, enrollment and control
    rights, publication, the certificate chain, hosting), up to two hops longer than the shortest. The
    reference traces each technique's own rule; this is the same subgraph for the usual shapes. Any other
    kind has no composition: an empty graph, as in the reference."""
    kind, start, end = await _existing_edge(session, edge_types, sources, targets)
    if kind not in COMPOSITE_EDGES:
        return unified_graph([], [], include_properties=True)
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    parts = sorted(kinds.ids[name] for name in COMPOSITION_PARTS if name in kinds.ids)
    edge_ids = await edges_between(conn, start, end, kind_ids=parts, max_depth=COMPOSITION_DEPTH, slack=2)
    edges = await lookup.edges_by_id(conn, edge_ids)
    node_ids = {start, end} | {e.start_id for e in edges} | {e.end_id for e in edges}
    return unified_graph(await lookup.nodes_by_id(conn, node_ids) if edges else [], edges, include_properties=True)


async def acl_inheritance(session: AsyncSession, edge_types: Sequence[str], sources: Sequence[str],
                          targets: Sequence[str]) -> UnifiedGraph:
    """The containers an inherited ACL edge's ACE comes from: each walk up the Contains edges from the edge's
    target to a container (Domain, OU, Container) that holds the ACE's inheritance hash, with no ACL-protected
    object below it on the way, then the edge itself. An edge that is not an inherited ACE, or whose source
    is not found, has an empty answer."""
    kind, start, end = await _existing_edge(session, edge_types, sources, targets)
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    edge = await repository.edge_of(conn, start, kind, end, kinds)
    assert edge is not None, "_existing_edge found it"
    inheritance_hash = edge.properties.get("inheritancehash")
    if not (edge.properties.get("isacl") is True and edge.properties.get("isinherited") is True
            and isinstance(inheritance_hash, str) and inheritance_hash):
        return unified_graph([], [], include_properties=True)
    walks = await repository.inheritance_sources(conn, end, inheritance_hash, kinds)
    if not walks:
        return unified_graph([], [], include_properties=True)
    edge_ids = {edge_id for edge_ids, _ in walks for edge_id in edge_ids}
    node_ids = {start} | {node_id for _, node_ids in walks for node_id in node_ids}
    edges = [*await lookup.edges_by_id(conn, edge_ids), edge]
    return unified_graph(await lookup.nodes_by_id(conn, node_ids), edges, include_properties=True)
