"""The harness pictures of ../shared/data/harnesses: load the input part, analyse, compare exactly.

azbaseharness.json is not run: it is a layout picture (nodes without captions marked "Not
Represented", AZHasRole edges into those unnamed nodes, five roles without role template ids), and
the one post-processed edge it draws (User -AZPrivilegedRoleAdmin-> Tenant) cannot follow from it
because none of its roles is identified as Privileged Role Administrator.
"""

from __future__ import annotations

import pytest

from houndgraph.analysis import Rule
from houndgraph.analysis.ad import dcsync, gpo
from houndgraph.analysis.adcs import esc1, esc6, esc9, goldencert
from houndgraph.analysis.azure import hybrid
from houndgraph.analysis.azure import roles as azure_roles
from houndgraph.graph.kinds import ADEdge, AZEdge
from tests.analysis.graphs import Graph
from tests.analysis.harness import load

AD_CASES: list[tuple[str, Rule, str]] = [
    ("dcsyncharness.json", dcsync.RULE, ADEdge.DCSync),
    ("adcsesc1-1.json", esc1.RULE, ADEdge.ADCSESC1),
    ("adcsesc1-authusers.json", esc1.RULE, ADEdge.ADCSESC1),
    ("esc6a-template1.json", esc6.RULE_6A, ADEdge.ADCSESC6a),
    ("esc6a-template2.json", esc6.RULE_6A, ADEdge.ADCSESC6a),
    ("esc6b-eca.json", esc6.RULE_6B, ADEdge.ADCSESC6b),
    ("esc6b-template-1.json", esc6.RULE_6B, ADEdge.ADCSESC6b),
    ("esc6b-template-2.json", esc6.RULE_6B, ADEdge.ADCSESC6b),
    ("esc9aharness1.json", esc9.RULE_9A, ADEdge.ADCSESC9a),
    ("goldencert.json", goldencert.RULE, ADEdge.GoldenCert),
]


@pytest.mark.parametrize(("file_name", "rule", "kind"), AD_CASES, ids=[case[0] for case in AD_CASES])
def test_ad_harness(graph: Graph, file_name: str, rule: Rule, kind: str) -> None:
    harness = load(graph, file_name, {kind})
    expected = harness.expected_of(kind)
    assert expected, "every one of these pictures draws at least one expected edge"
    graph.run(rule)
    assert graph.derived(kind) == expected


def test_esc6a_eca_harness_derives_exactly_one_edge(graph: Graph) -> None:
    # The picture marks no expected edge; data/README.md says it expects exactly one. Reading it: of the
    # five CA set-ups only CA0 has the SAN flag, a published valid template, a root chain (IssuedSignedBy
    # RootCA0 -RootCAFor-> Domain0) and NTAuth trust; CA1 lacks the flag, CA3 the NTAuth trust, CA4 the
    # root chain, CA5 the published template. Group0 enrolls on both CA0 and CertTemplate0.
    harness = load(graph, "esc6a-eca.json", {ADEdge.ADCSESC6a})
    assert harness.expected == set()
    graph.run(esc6.RULE_6A)
    assert graph.derived(ADEdge.ADCSESC6a) == {("Group0", "Domain0")}


def test_gpo_enforcement_harness(graph: Graph) -> None:
    # The picture draws no expected edge; what it shows is GPO A linked enforced and GPO B linked
    # unenforced to the domain, OU A and OU D blocking inheritance. Enforced links pass blocks, the
    # others do not: A reaches every user, B only User B (under OU B, which does not block).
    harness = load(graph, "gpoenforcementharness.json", {ADEdge.GPOAppliesTo})
    assert harness.expected == set()
    graph.run(gpo.RULE)
    assert graph.derived(ADEdge.GPOAppliesTo) == {
        ("GPO A", "User A"), ("GPO A", "User B"), ("GPO A", "User C"), ("GPO A", "User D"), ("GPO B", "User B")}
    assert graph.derived(ADEdge.CanApplyGPO) == set()


def test_az_add_secret_harness(graph: Graph) -> None:
    harness = load(graph, "AZAddSecretHarness.json", {AZEdge.AddSecret})
    graph.run(azure_roles.RULE)
    assert graph.derived(AZEdge.AddSecret) == harness.expected_of(AZEdge.AddSecret) != set()


def test_hybrid_attack_paths_harness(graph: Graph) -> None:
    # The picture draws no expected edge; what it shows is a synced AZUser whose on-premises id is the AD
    # User's object id: the two hybrid edges link them, one each way.
    harness = load(graph, "HybridAttackPaths.json", {AZEdge.SyncedToADUser, ADEdge.SyncedToEntraUser})
    assert harness.expected == set()
    graph.run(hybrid.RULE)
    assert graph.derived(AZEdge.SyncedToADUser) == {("AZUser", "User")}
    assert graph.derived(ADEdge.SyncedToEntraUser) == {("User", "AZUser")}
