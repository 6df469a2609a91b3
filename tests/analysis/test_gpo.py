"""GPOAppliesTo / CanApplyGPO on a small OU tree."""

from __future__ import annotations

from houndgraph.analysis.ad import gpo
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import Graph


def test_linkers_reach_everything_below_and_containers_pass_gpos_down(graph: Graph) -> None:
    graph.domain("D")
    graph.node("Servers", ADNode.OU)
    graph.node("Blocked", ADNode.OU, blocksinheritance=True)
    graph.node("Builtin", ADNode.Container)
    graph.node("GPO1", ADNode.GPO)
    graph.node("GPO2", ADNode.GPO)
    for name in ("Admin", "Web", "Db", "Kiosk"):
        graph.node(name, ADNode.Computer if name != "Admin" else ADNode.User)
    graph.node("OU Admins", ADNode.Group)
    graph.edges(ADEdge.Contains, [("D", "Servers"), ("D", "Builtin"), ("Servers", "Web"), ("Servers", "Blocked"),
                                  ("Blocked", "Db"), ("Builtin", "Kiosk"), ("D", "Admin")])
    graph.edge("GPO1", ADEdge.GPLink, "D", enforced=False)
    graph.edge("GPO2", ADEdge.GPLink, "Servers", enforced=True)
    graph.edge("OU Admins", ADEdge.WriteGPLink, "Servers")
    graph.run(gpo.RULE)
    assert graph.derived(ADEdge.GPOAppliesTo) == {
        ("GPO1", "Admin"), ("GPO1", "Kiosk"), ("GPO1", "Web"), ("GPO2", "Web"), ("GPO2", "Db")}
    assert graph.derived(ADEdge.CanApplyGPO) == {("OU Admins", "Web"), ("OU Admins", "Db")}
