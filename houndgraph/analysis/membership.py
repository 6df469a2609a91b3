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
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components


class Membership:
    def __init__(self, pairs: Sequence[tuple[int, int]], *, excluded: Iterable[int] = ()) -> None:
        self.excluded = frozenset(excluded)
        if pairs:
            array = np.asarray(pairs, dtype=np.int64)
            members, groups = array[:, 0], array[:, 1]
        else:
            members = groups = np.empty(0, dtype=np.int64)
        self._ids, inverse = np.unique(np.concatenate([members, groups]), return_inverse=True)
        count = len(self._ids)
        member_index, group_index = inverse[: len(members)], inverse[len(members):]
        data = np.ones(len(members), dtype=np.int8)
        # Row = group, columns = its direct members: a walk from a group visits its members.
        self._matrix = csr_matrix((data, (group_index, member_index)), shape=(count, count))
        self._index = {int(node): i for i, node in enumerate(self._ids)}
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
        """For every group, up to `limit` of its transitive members that are in `sought`.

        One pass over the membership graph, members before their groups (strongly connected components
        share one answer), instead of one walk per group: enough to ask "does this group contain a
        sought node other than X" for thousands of groups at once.
        """
        count = len(self._ids)
        if not count or not sought:
            return {}
        components = int(self._component.max()) + 1
        component: list[int] = self._component.tolist()  # plain ints: indexing numpy one element at a time is slow
        found: list[set[int]] = [set() for _ in range(components)]
        for node in sought:
            index = self._index.get(node)
            if index is not None and len(found[component[index]]) < limit:
                found[component[index]].add(node)
        # Edges between components, group component -> member component (in the matrix's order, group by
        # group); visit members first.
        indptr, indices = self._matrix.indptr, self._matrix.indices
        group_components = self._component[np.repeat(np.arange(count), np.diff(indptr))]
        member_components = self._component[indices]
        between = group_components != member_components
        children: list[set[int]] = [set() for _ in range(components)]
        for group_component, member_component in zip(group_components[between].tolist(),
                                                     member_components[between].tolist(), strict=True):
            children[group_component].add(member_component)
        done = [False] * components
        for root in range(components):
            if done[root]:
                continue
            stack = [(root, False)]
            while stack:
                current, expanded = stack.pop()
                if expanded:
                    for child in children[current]:
                        if len(found[current]) >= limit:
                            break
                        for witness in found[child]:
                            if len(found[current]) >= limit:
                                break
                            found[current].add(witness)
                    done[current] = True
                    continue
                if done[current]:
                    continue
                stack.append((current, True))
                stack.extend((child, False) for child in children[current] if not done[child])
        return {node: frozenset(found[component[i]])
                for i, node in enumerate(self._ids.tolist()) if found[component[i]]}

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
