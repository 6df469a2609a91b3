"""Transitive group membership and the "cross product" of rights that several rules need.

The membership graph is every MemberOf and MemberOfLocalGroup edge (member -> group), held as a
compressed sparse matrix from group to direct members; a group's transitive members are one
breadth-first walk in scipy (C speed), cached per group for the run.

Cross product, in our words (reference: `CalculateCrossProductNodeSets` and its design note): a rule
such as DCSync needs a principal to hold several rights at once (GetChanges *and* GetChangesAll). Each
right is a set of first-degree holders; a holder that is a group passes the right to all its
transitive members. The answer is the smallest set of principals that hold every right:

* A set that contains Everyone or Authenticated Users, or a group that (transitively) contains one of
  them, grants the right to every principal, so it stops being a requirement. If every set is like
  that, the answer is the union of the first-degree holders; if all but one are, it is that one's
  first-degree holders.
* Otherwise the first remaining set is the reference. Its first-degree holders that hold all the
  other rights (directly or through membership) are in the answer, and are not expanded. The other
  first-degree holders are expanded: their transitive members holding all the rights are candidates,
  and a candidate is in the answer unless it is a member (outside its own membership cycle) of
  another candidate: the edge then starts at the group, which is what an analyst wants to see (one
  edge from "Group1", not one from each of its thousand members). A member of a first-degree holder
  that qualified directly can still get its own edge when it holds the reference right through another
  group (the adcsesc1-1 harness: User1-1 enrolls on the template through Group1-1 and on the CA through
  Group1-3, and gets an edge beside Group1-3's).

The reference reaches the same answers on the documented harnesses; where its bitmap bookkeeping can
re-add members of nested groups that both qualify, we keep only the outermost group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from houndgraph.graph.arrays import numbered, row_positions

_NONE = np.iinfo(np.int64).max  # an empty witness slot


def _keep_smallest(found: NDArray[np.int64], owners: NDArray[np.int64], values: NDArray[np.int64]) -> None:
    """Set each owner's row of `found` to the smallest distinct of its `values` (as many as the row holds)."""
    present = values != _NONE
    owners, values = owners[present], values[present]
    if not owners.size:
        return
    order = np.lexsort((values, owners))
    owners, values = owners[order], values[order]
    distinct = np.ones(owners.size, dtype=np.bool_)
    distinct[1:] = (owners[1:] != owners[:-1]) | (values[1:] != values[:-1])
    owners, values = owners[distinct], values[distinct]
    first = np.ones(owners.size, dtype=np.bool_)
    first[1:] = owners[1:] != owners[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(owners.size), 0))
    rank = np.arange(owners.size) - group_start
    kept = rank < found.shape[1]
    found[owners[kept], rank[kept]] = values[kept]


class Membership:
    def __init__(self, pairs: Sequence[tuple[int, int]] | NDArray[np.int64], *, excluded: Iterable[int] = ()) -> None:
        self.excluded = frozenset(excluded)
        if len(pairs):
            array = np.asarray(pairs, dtype=np.int64)
            members, groups = array[:, 0], array[:, 1]
        else:
            members = groups = np.empty(0, dtype=np.int64)
        self._ids, (member_index, group_index) = numbered(members, groups)
        count = len(self._ids)
        data = np.ones(len(members), dtype=np.int8)
        # Row = group, columns = its direct members: a walk from a group visits its members.
        self._matrix = csr_matrix((data, (group_index, member_index)), shape=(count, count))
        self._index = dict(zip(self._ids.tolist(), range(count), strict=True))
        _, self._component = connected_components(self._matrix, directed=True, connection="strong")
        self._component_size = np.bincount(self._component) if count else np.empty(0, dtype=np.int64)
        self._cache: dict[int, frozenset[int]] = {}

    def __contains__(self, node: int) -> bool:
        return node in self._index

    def direct_members(self, group: int) -> set[int]:
        index = self._index.get(group)
        if index is None:
            return set()
        start, end = self._matrix.indptr[index], self._matrix.indptr[index + 1]
        return {int(self._ids[i]) for i in self._matrix.indices[start:end]}

    def members(self, group: int) -> frozenset[int]:
        """Transitive members of `group` (not the group itself, unless it sits in a membership cycle)."""
        found = self._cache.get(group)
        if found is not None:
            return found
        index = self._index.get(group)
        if index is None or self._matrix.indptr[index] == self._matrix.indptr[index + 1]:
            found = frozenset()
        else:
            order = breadth_first_order(self._matrix, index, directed=True, return_predecessors=False)
            reached = order[1:]
            if self._in_cycle(index):
                reached = order
            found = frozenset(self._ids[reached].tolist())
        self._cache[group] = found
        return found

    def members_outside_cycle(self, group: int) -> frozenset[int]:
        """Transitive members that are not in a membership cycle with `group`."""
        index = self._index.get(group)
        members = self.members(group)
        if index is None or not self._in_cycle(index):
            return members
        component = self._component[index]
        return frozenset(node for node in members if self._component[self._index[node]] != component)

    def _in_cycle(self, index: int) -> bool:
        # A strongly connected component of more than one node is a cycle (self-loops are not stored).
        return bool(self._component_size[self._component[index]] > 1)

    def witnesses(self, sought: set[int], limit: int = 2) -> dict[int, frozenset[int]]:
        """For every node, up to `limit` of the nodes in `sought` among itself and its transitive members: the
        `limit` smallest ids.

        One pass over the membership graph, members before their groups (strongly connected components
        share one answer), instead of one walk per group: enough to ask "does this group contain a
        sought node other than X" for thousands of groups at once. The pass goes level by level (a
        component is done once all its member components are), each level in numpy.
        """
        count = len(self._ids)
        if not count or not sought:
            return {}
        component = self._component
        components = int(component.max()) + 1
        # Member -> group edges between components, deduplicated: (group component, member component).
        indptr, indices = self._matrix.indptr, self._matrix.indices
        group_components = component[np.repeat(np.arange(count), np.diff(indptr))].astype(np.int64)
        member_components = component[indices].astype(np.int64)
        between = group_components != member_components
        keys = np.sort(group_components[between] * components + member_components[between])
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size else keys
        parents, children = keys // components, keys % components  # sorted by parent
        parent_start = np.searchsorted(parents, np.arange(components + 1))
        by_child = np.argsort(children, kind="stable")
        child_start = np.searchsorted(children[by_child], np.arange(components + 1))
        # Each component's own sought nodes first.
        found = np.full((components, limit), _NONE, dtype=np.int64)
        own = np.asarray(sorted(self._index[node] for node in sought if node in self._index), dtype=np.int64)
        _keep_smallest(found, component[own].astype(np.int64), self._ids[own].astype(np.int64))
        waiting = np.diff(parent_start)  # member components not done yet
        ready = np.flatnonzero(waiting == 0)
        while ready.size:
            edges = row_positions(parent_start, ready)
            if edges.size:
                values = found[children[edges]]
                owners = np.repeat(parents[edges], limit)
                _keep_smallest(found, np.concatenate([np.repeat(ready, limit), owners]),
                               np.concatenate([found[ready].ravel(), values.ravel()]))
            released = parents[by_child[row_positions(child_start, ready)]]
            if not released.size:
                break
            waiting = waiting - np.bincount(released, minlength=components)
            done = np.zeros(components, dtype=np.bool_)
            done[released[waiting[released] == 0]] = True
            ready = np.flatnonzero(done)
        per_node = found[component]
        has = np.flatnonzero(per_node[:, 0] != _NONE)
        return {node: frozenset(value for value in row if value != _NONE)
                for node, row in zip(self._ids[has].tolist(), per_node[has].tolist(), strict=True)}

    def groups_of(self, node: int) -> set[int]:
        """Direct groups of `node` (used rarely; the matrix is stored group -> member)."""
        index = self._index.get(node)
        if index is None:
            return set()
        column = self._matrix.getcol(index)
        return {int(self._ids[i]) for i in column.nonzero()[0]}

    def unrolled(self, principals: Iterable[int]) -> set[int]:
        result: set[int] = set()
        for principal in principals:
            result.add(principal)
            result |= self.members(principal)
        return result

    def grants_everyone(self, principals: Iterable[int]) -> bool:
        """True when the set includes Everyone / Authenticated Users, directly or as a nested member."""
        for principal in principals:
            if principal in self.excluded or not self.excluded.isdisjoint(self.members(principal)):
                return True
        return False

    def cross_product(self, *sets: Iterable[int]) -> set[int]:
        """The principals holding every one of the rights given as first-degree holder sets."""
        first_degree = [set(holders) for holders in sets]
        required = [holders for holders in first_degree if not self.grants_everyone(holders)]
        if not required:
            return set().union(*first_degree)
        if len(required) == 1:
            return set(required[0])
        reference, others = required[0], required[1:]
        check = self.unrolled(others[0])
        for holders in others[1:]:
            check &= self.unrolled(holders)
        result = {holder for holder in reference if holder in check}
        candidates: set[int] = set()
        for holder in reference - result:
            candidates |= self.members(holder) & check
        candidates -= result
        covered: set[int] = set()
        for principal in candidates:
            covered |= self.members_outside_cycle(principal)
        return result | (candidates - covered)
