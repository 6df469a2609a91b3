"""AdminTo, CanPSRemote, ExecuteDCOM and CanRDP from the local groups of each computer.

AdminTo / CanPSRemote / ExecuteDCOM: the computer's local group attached by LocalToComputer whose
object id ends `-544` (Administrators), `-580` (Remote Management Users) or `-562` (Distributed COM
Users); every node with a MemberOfLocalGroup edge into that group -> the computer. Only the direct
members get the edge: path finding walks MemberOf up to them.

CanRDP (reference `PostCanRDP`, user-rights assignment always enforced as the reference's driver
does): the computer's Remote Desktop Users local group (`-555`) and the principals holding
RemoteInteractiveLogonRight (RIL) on the computer.
* If the RDP group itself holds RIL, its direct MemberOfLocalGroup members get CanRDP.
* Otherwise a principal qualifies when it is a (transitive) member of the RDP group and holds RIL
  itself or through a group it belongs to: each RIL holder that is in the RDP group's membership
  qualifies; for the others, their transitive members that are in the RDP group's membership do.
* With `analysis.citrix_rdp_support` on and a local group named "Direct Access Users" (Citrix) on the
  computer, a principal must be in the RDP group and in Direct Access Users and hold RIL: the cross
  product of the three (see `membership`). Without that group the rules above apply.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.analysis.sink import PairArray
from houndgraph.graph.kinds import ADEdge, ADNode

ADMINISTRATORS_SUFFIX = "-544"
REMOTE_MANAGEMENT_USERS_SUFFIX = "-580"
DCOM_USERS_SUFFIX = "-562"
REMOTE_DESKTOP_USERS_SUFFIX = "-555"
BACKUP_OPERATORS_SUFFIX = "-551"
DIRECT_ACCESS_USERS = "Direct Access Users"

EDGE_BY_SUFFIX = {
    ADMINISTRATORS_SUFFIX: ADEdge.AdminTo,
    REMOTE_MANAGEMENT_USERS_SUFFIX: ADEdge.CanPSRemote,
    DCOM_USERS_SUFFIX: ADEdge.ExecuteDCOM,
}

# Local groups by SID suffix, with their computers and their direct members.
_LOCAL_GROUPS = """
SELECT l.end_id, right(g.properties->>'objectid', 4), g.id
FROM edge l
JOIN node g ON g.id = l.start_id
JOIN node c ON c.id = l.end_id AND c.kind_ids @> ARRAY[%(computer)s]::smallint[]
WHERE l.kind_id = %(local_to_computer)s AND right(g.properties->>'objectid', 4) = ANY(%(suffixes)s)
"""
_NAMED_LOCAL_GROUPS = """
SELECT l.end_id, g.id
FROM edge l
JOIN node g ON g.id = l.start_id AND g.kind_ids @> ARRAY[%(local_group)s]::smallint[]
WHERE l.kind_id = %(local_to_computer)s AND g.properties->>'name' ILIKE %(name)s
"""


_ALL_SUFFIXES = [*EDGE_BY_SUFFIX, REMOTE_DESKTOP_USERS_SUFFIX, BACKUP_OPERATORS_SUFFIX]


def local_groups(ctx: Context, suffixes: list[str]) -> dict[str, dict[int, int]]:
    """suffix -> computer -> its local group with that suffix (the first one, there is one). Read once per run
    for every suffix the local-group rules use (here and CanBackup): each read joins every LocalToComputer edge."""
    found: dict[str, dict[int, int]] | None = ctx.cache.get(__name__)
    if found is None:
        found = {suffix: {} for suffix in _ALL_SUFFIXES}
        computer, local_to_computer = ctx.kind_id(ADNode.Computer), ctx.kind_id(ADEdge.LocalToComputer)
        if computer is not None and local_to_computer is not None:
            rows = ctx.conn.execute(
                _LOCAL_GROUPS + " ORDER BY g.id",
                {"computer": computer, "local_to_computer": local_to_computer, "suffixes": _ALL_SUFFIXES},
            ).fetchall()
            for computer_id, suffix, group in rows:
                found[suffix].setdefault(computer_id, group)
        ctx.cache[__name__] = found
    return {suffix: found[suffix] for suffix in suffixes}


def direct_local_members(ctx: Context, groups: set[int]) -> dict[int, set[int]]:
    return ctx.sources(groups, ADEdge.MemberOfLocalGroup)


def compute_admin_rights(ctx: Context) -> Derived:
    """Joined in numpy: the MemberOfLocalGroup edges (read whole once per run, `Context.edge_array`) sorted by group,
    each computer's group taking its members' slice. Sets of a tuple per edge cost 2.2 s of Python at 300k objects
    (225k edges), and asking the table for the members of 150k groups as much again in PostgreSQL."""
    groups = local_groups(ctx, list(EDGE_BY_SUFFIX))
    memberships = ctx.edge_array(ADEdge.MemberOfLocalGroup)
    memberships = memberships[np.argsort(memberships[:, 1], kind="stable")]
    return {EDGE_BY_SUFFIX[suffix]: _members_to_computers(memberships, by_computer)
            for suffix, by_computer in groups.items()}


def _members_to_computers(memberships: PairArray, group_of: dict[int, int]) -> PairArray:
    """(member, computer) for every direct member of each computer's group; `memberships`: (member, group) pairs
    sorted by group."""
    computers = np.fromiter(group_of.keys(), dtype=np.int64, count=len(group_of))
    groups = np.fromiter(group_of.values(), dtype=np.int64, count=len(group_of))
    first = np.searchsorted(memberships[:, 1], groups, side="left")
    lengths = np.searchsorted(memberships[:, 1], groups, side="right") - first
    positions = np.repeat(first - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    return np.column_stack([memberships[positions, 0], np.repeat(computers, lengths)])


def compute_can_rdp(ctx: Context) -> Derived:
    rdp_groups = local_groups(ctx, [REMOTE_DESKTOP_USERS_SUFFIX])[REMOTE_DESKTOP_USERS_SUFFIX]
    ril: dict[int, set[int]] = defaultdict(set)
    for holder, computer in ctx.edges(ADEdge.RemoteInteractiveLogonRight):
        ril[computer].add(holder)
    direct_access = _direct_access_groups(ctx) if ctx.options.citrix_rdp_support else {}
    shortcut = {group for computer, group in rdp_groups.items() if group in ril[computer]}
    direct = direct_local_members(ctx, shortcut)
    membership = ctx.membership
    pairs: set[tuple[int, int]] = set()
    for computer, rdp_group in rdp_groups.items():
        holders = ril[computer]
        if computer in direct_access:
            principals = membership.cross_product({rdp_group}, {direct_access[computer]}, holders)
        elif rdp_group in shortcut:
            principals = direct[rdp_group]
        elif holders:
            principals = _rdp_members_with_right(ctx, rdp_group, holders)
        else:
            continue
        pairs.update((principal, computer) for principal in principals)
    return {ADEdge.CanRDP: pairs}


def _rdp_members_with_right(ctx: Context, rdp_group: int, holders: set[int]) -> set[int]:
    rdp_members = ctx.membership.members(rdp_group)
    principals: set[int] = set()
    for holder in holders:
        if holder in rdp_members:
            principals.add(holder)
        else:
            principals |= ctx.membership.members(holder) & rdp_members
    return principals


def _direct_access_groups(ctx: Context) -> dict[int, int]:
    local_group, local_to_computer = ctx.kind_id(ADNode.LocalGroup), ctx.kind_id(ADEdge.LocalToComputer)
    if local_group is None or local_to_computer is None:
        return {}
    rows = ctx.conn.execute(
        _NAMED_LOCAL_GROUPS + " ORDER BY g.id",
        {"local_group": local_group, "local_to_computer": local_to_computer, "name": DIRECT_ACCESS_USERS + "%"},
    )
    found: dict[int, int] = {}
    for computer, group in rows:
        found.setdefault(computer, group)
    return found


ADMIN_RULE = Rule("LocalGroups", tuple(EDGE_BY_SUFFIX.values()), compute_admin_rights)
RDP_RULE = Rule("CanRDP", (ADEdge.CanRDP,), compute_can_rdp)
