"""Relay-target SQL (reference/behaviour.md §7): which computers or CAs an NTLM relay edge can reach."""

from __future__ import annotations

from collections.abc import Sequence

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.related import KindIds


async def node_ids_by_object_id(conn: GraphConnection, object_ids: Sequence[str]) -> list[int | None]:
    """The node of each object id, in one query (the ends of a path search): object ids are stored
    upper-cased, and the lowest node id wins when several nodes share one."""
    cursor = await conn.execute(
        "SELECT (SELECT n.id FROM node n WHERE n.properties->>'objectid' = u.oid ORDER BY n.id LIMIT 1) "
        "FROM unnest(%(oids)s::text[]) WITH ORDINALITY AS u(oid, pos) ORDER BY u.pos",
        {"oids": [object_id.upper() for object_id in object_ids]})
    return [row[0] for row in await cursor.fetchall()]


async def edge_exists(conn: GraphConnection, start: int, kind: str, end: int, kinds: KindIds) -> bool:
    cursor = await conn.execute(
        f"SELECT 1 FROM edge WHERE start_id = %(s)s AND end_id = %(e)s AND kind_id = ANY({kinds(kind)}) LIMIT 1",
        {"s": start, "e": end})
    return await cursor.fetchone() is not None


def _flag(name: str, value: bool) -> str:
    # Present and equal: a missing property never qualifies (the reference compares typed values).
    return f"n.properties->'{name}' = '{'true' if value else 'false'}'::jsonb"


async def relay_targets(conn: GraphConnection, kind: str, start: int, end: int,
                        kinds: KindIds) -> list[int]:
    sid = "(SELECT s.properties->>'domainsid' FROM node s WHERE s.id = %(start)s)"
    if kind == ADEdge.CoerceAndRelayNTLMToLDAP:
        where = (f"n.kind_ids && {kinds(ADNode.Computer)} AND {_flag('isdc', True)} AND {_flag('ldapavailable', True)} "
                 f"AND {_flag('ldapsigning', False)} AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToLDAPS:
        where = (f"n.kind_ids && {kinds(ADNode.Computer)} AND {_flag('isdc', True)} AND {_flag('ldapsepa', False)} "
                 f"AND {_flag('ldapsavailable', True)} AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToADCS:
        where = (f"n.kind_ids && {kinds(ADNode.EnterpriseCA)} AND {_flag('hasvulnerableendpoint', True)} "
                 f"AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToSMB:
        # Admins of the target computer, groups unrolled to their members; computers among them that do
        # not restrict outbound NTLM, of the coercing domain, other than the target itself.
        where = (
            f"n.id IN (WITH RECURSIVE w(id) AS (SELECT e.start_id FROM edge e WHERE e.end_id = %(end)s "
            f"AND e.kind_id = ANY({kinds(ADEdge.AdminTo)}) UNION SELECT e.start_id FROM w JOIN edge e "
            f"ON e.end_id = w.id AND e.kind_id = ANY({kinds(ADEdge.MemberOf)})) SELECT id FROM w) "
            f"AND NOT n.kind_ids && {kinds(ADNode.User, ADNode.Group)} AND {_flag('restrictoutboundntlm', False)} "
            f"AND n.properties->>'domainsid' = {sid} AND n.id <> %(end)s")
    else:
        return []
    cursor = await conn.execute(f"SELECT n.id FROM node n WHERE {where} ORDER BY n.id", {"start": start, "end": end})
    return [row[0] for row in await cursor.fetchall()]
