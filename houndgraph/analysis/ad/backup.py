"""CanBackup: who can back up (and restore) a computer's files, hence read its secrets.

Reference `FetchCanBackupEntityBitmapForComputer`, in our words: the computer's Backup Operators local
group (`-551`). When user rights were collected for the computer (`hasura = true`), a principal needs
to be in that group *and* hold both BackupPrivilege and RestorePrivilege on the computer (directly or
through a group): the cross product of the three sets. Without user-rights data, the group's direct
MemberOfLocalGroup members get the edge, as for AdminTo.
"""

from __future__ import annotations

from collections import defaultdict

from houndgraph.analysis.ad.local_groups import BACKUP_OPERATORS_SUFFIX, direct_local_members, local_groups
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode


def compute(ctx: Context) -> Derived:
    groups = local_groups(ctx, [BACKUP_OPERATORS_SUFFIX])[BACKUP_OPERATORS_SUFFIX]
    if not groups:
        return {ADEdge.CanBackup: set()}
    with_ura = set(ctx.node_ids(ADNode.Computer, "n.properties->'hasura' = 'true'::jsonb AND n.id = ANY(%(ids)s)",
                                {"ids": list(groups)}))
    backup: dict[int, set[int]] = defaultdict(set)
    restore: dict[int, set[int]] = defaultdict(set)
    for holder, computer in ctx.edges(ADEdge.BackupPrivilege):
        backup[computer].add(holder)
    for holder, computer in ctx.edges(ADEdge.RestorePrivilege):
        restore[computer].add(holder)
    direct = direct_local_members(ctx, {group for computer, group in groups.items() if computer not in with_ura})
    pairs: set[tuple[int, int]] = set()
    for computer, group in groups.items():
        if computer in with_ura:
            principals = ctx.membership.cross_product({group}, backup[computer], restore[computer])
        else:
            principals = direct[group]
        pairs.update((principal, computer) for principal in principals)
    return {ADEdge.CanBackup: pairs}


RULE = Rule("CanBackup", (ADEdge.CanBackup,), compute)
