"""The cross product of rights through group membership, on membership graphs given as edge lists."""

from __future__ import annotations

import random

import pytest

from houndgraph.analysis.membership import Membership

# member -> group
NESTED = [(1, 10), (2, 10), (3, 11), (11, 10), (4, 12)]


def test_members_are_transitive_and_exclude_the_group() -> None:
    membership = Membership(NESTED)
    assert membership.members(10) == {1, 2, 3, 11}
    assert membership.members(11) == {3}
    assert membership.members(1) == set()
    assert membership.members(99) == set()


def test_a_membership_cycle_makes_each_group_its_own_member() -> None:
    membership = Membership([(10, 11), (11, 10), (1, 10)])
    assert membership.members(10) == {10, 11, 1}
    assert membership.members_outside_cycle(10) == {1}


def test_cross_product_keeps_first_degree_holders_of_both() -> None:
    membership = Membership(NESTED)
    # 1 holds both directly; 10 holds the first right, 11 (inside 10) the second.
    assert membership.cross_product({1, 10}, {1, 11}) == {1, 11}


def test_cross_product_stops_at_the_outermost_qualifying_group() -> None:
    # The dcsync harness: GetChanges {User1, Group1, Group3}, GetChangesAll {User1, Group2};
    # User2 in Group1 and Group2, User3 in Group2, Group3 in Group2, User4 in Group3.
    user1, user2, user3, user4, group1, group2, group3 = 1, 2, 3, 4, 11, 12, 13
    membership = Membership([(user2, group1), (user2, group2), (user3, group2), (group3, group2), (user4, group3)])
    assert membership.cross_product({user1, group1, group3}, {user1, group2}) == {user1, user2, group3}


def test_a_member_holding_the_reference_right_elsewhere_keeps_its_own_edge() -> None:
    # The adcsesc1-1 harness: template enrollers {Group1-1, Group1-3}, CA enrollers {Group1-2, Group1-3};
    # User1-1 in Group1-3 and Group1-1, User1-2 in Group1-3, User1-3 in Group1-2 and Group1-1,
    # User1-4 in Group1-2, User1-5 in Group1-1.
    u1, u2, u3, u4, u5, g1, g2, g3 = 1, 2, 3, 4, 5, 11, 12, 13
    membership = Membership([(u1, g3), (u2, g3), (u4, g2), (u3, g2), (u1, g1), (u3, g1), (u5, g1)])
    assert membership.cross_product({g1, g3}, {g2, g3}) == {g3, u3, u1}


def test_a_set_granted_to_everyone_is_no_requirement() -> None:
    authenticated_users = 50
    # Domain Users (20) is in Authenticated Users, which is in group 30; group 40 only holds Domain Users.
    membership = Membership([(1, 20), (20, authenticated_users), (authenticated_users, 30), (20, 40), (2, 31)],
                            excluded={authenticated_users})
    assert membership.cross_product({31}, {authenticated_users}) == {31}
    assert membership.cross_product({31}, {30}) == {31}  # 30 contains Authenticated Users, hence everybody
    assert membership.cross_product({authenticated_users}, {30}) == {authenticated_users, 30}
    assert membership.cross_product({31}, {40}) == set()  # Domain Users is not everybody: 2 is not in it


def test_no_common_holder_gives_nothing() -> None:
    membership = Membership(NESTED)
    assert membership.cross_product({12}, {11}) == set()
    assert membership.cross_product({12}, set()) == set()


def test_witnesses_name_up_to_two_sought_members_per_group() -> None:
    # 1, 2, 3 sought; 10 contains 1 and 11; 11 contains 2 and 3; 12 and 13 form a cycle containing 3.
    membership = Membership([(1, 10), (11, 10), (2, 11), (3, 11), (12, 13), (13, 12), (3, 12), (4, 14)])
    found = membership.witnesses({1, 2, 3}, limit=2)
    assert len(found[10]) == 2 and found[10] <= {1, 2, 3}
    assert found[11] == {2, 3}
    assert found[12] == found[13] == {3}
    assert 14 not in found and 4 not in found
    assert {node: set(value) for node, value in membership.witnesses({3}, limit=1).items()}[10] == {3}


@pytest.mark.parametrize(("seed", "nodes", "pairs", "limit"),
                         [(1, 60, 120, 2), (2, 60, 120, 2), (3, 60, 120, 1), (4, 400, 900, 2), (5, 400, 500, 3)])
def test_witnesses_match_the_transitive_members_of_every_group(seed: int, nodes: int, pairs: int, limit: int) -> None:
    """The level-by-level pass names, for every node, the smallest sought nodes among itself and the members one
    breadth-first walk per group finds (cycles, nesting many levels deep, members of several groups)."""
    rng = random.Random(seed)
    drawn = {(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(pairs)}
    edges = sorted(drawn - {(n, n) for n in range(nodes)})
    membership = Membership(edges)
    sought = set(rng.sample(range(nodes), nodes // 4))
    found = membership.witnesses(sought, limit=limit)
    for node in {node for pair in edges for node in pair}:
        pool = ({node} | membership.members(node)) & sought
        assert found.get(node, frozenset()) == frozenset(sorted(pool)[:limit])
