"""AdminTo / CanPSRemote / ExecuteDCOM / CanRDP / CanBackup from local groups, and Owns / WriteOwner."""

from __future__ import annotations

from houndgraph.analysis.ad import backup, local_groups, owns
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph

PC_SID = "S-1-5-21-1-2-3-1105"


def local_group(graph: Graph, name: str, rid: str, computer: str = "PC") -> str:
    graph.node(name, ADNode.LocalGroup, objectid=f"{PC_SID}-{rid}")
    graph.edge(name, ADEdge.LocalToComputer, computer)
    return name


def computer_with_groups(graph: Graph) -> None:
    graph.node("PC", ADNode.Computer, objectid=PC_SID)
    for name in ("Alice", "Bob", "Carol", "Dave"):
        graph.node(name, ADNode.User)
    graph.node("Helpdesk", ADNode.Group)
    graph.edge("Carol", ADEdge.MemberOf, "Helpdesk")


def test_admin_psremote_and_dcom_come_from_direct_local_group_members(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Administrators", "544")
    local_group(graph, "Remote Management Users", "580")
    local_group(graph, "Distributed COM Users", "562")
    local_group(graph, "Users", "545")
    graph.edges(ADEdge.MemberOfLocalGroup, [
        ("Alice", "Administrators"), ("Helpdesk", "Administrators"), ("Bob", "Remote Management Users"),
        ("Dave", "Distributed COM Users"), ("Dave", "Users"),
    ])
    graph.run(local_groups.ADMIN_RULE)
    assert graph.derived(ADEdge.AdminTo) == {("Alice", "PC"), ("Helpdesk", "PC")}  # Carol goes via Helpdesk
    assert graph.derived(ADEdge.CanPSRemote) == {("Bob", "PC")}
    assert graph.derived(ADEdge.ExecuteDCOM) == {("Dave", "PC")}


def test_local_group_not_attached_to_a_computer_gives_nothing(graph: Graph) -> None:
    computer_with_groups(graph)
    graph.node("Orphan Administrators", ADNode.LocalGroup, objectid="S-1-5-21-9-544")
    graph.edge("Alice", ADEdge.MemberOfLocalGroup, "Orphan Administrators")
    graph.run(local_groups.ADMIN_RULE)
    assert graph.derived(ADEdge.AdminTo) == set()


def test_can_rdp_when_the_rdp_group_holds_the_logon_right(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Remote Desktop Users", "555")
    graph.edges(ADEdge.MemberOfLocalGroup, [("Alice", "Remote Desktop Users"), ("Helpdesk", "Remote Desktop Users")])
    graph.edge("Remote Desktop Users", ADEdge.RemoteInteractiveLogonRight, "PC")
    graph.run(local_groups.RDP_RULE)
    assert graph.derived(ADEdge.CanRDP) == {("Alice", "PC"), ("Helpdesk", "PC")}


def test_can_rdp_without_the_group_right_needs_the_right_per_member(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Remote Desktop Users", "555")
    local_group(graph, "Administrators", "544")
    graph.edges(ADEdge.MemberOfLocalGroup, [("Alice", "Remote Desktop Users"), ("Helpdesk", "Remote Desktop Users"),
                                             ("Bob", "Administrators")])
    graph.edges(ADEdge.RemoteInteractiveLogonRight, [("Alice", "PC"), ("Administrators", "PC"), ("Dave", "PC")])
    graph.node("Logon Group", ADNode.Group)
    graph.edge("Carol", ADEdge.MemberOf, "Logon Group")
    graph.edge("Logon Group", ADEdge.RemoteInteractiveLogonRight, "PC")
    graph.run(local_groups.RDP_RULE)
    # Alice: in the RDP group with the right. Carol: in the RDP group (via Helpdesk), right via Logon Group.
    # Bob has the right (Administrators) but is not in the RDP group; Dave has the right only.
    assert graph.derived(ADEdge.CanRDP) == {("Alice", "PC"), ("Carol", "PC")}


def test_can_rdp_with_no_logon_right_data_gives_nothing(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Remote Desktop Users", "555")
    graph.edge("Alice", ADEdge.MemberOfLocalGroup, "Remote Desktop Users")
    graph.run(local_groups.RDP_RULE)
    assert graph.derived(ADEdge.CanRDP) == set()


def citrix_computer(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Remote Desktop Users", "555")
    graph.node("Direct Access Users", ADNode.LocalGroup, objectid=f"{PC_SID}-1001")
    graph.edge("Direct Access Users", ADEdge.LocalToComputer, "PC")
    graph.edges(ADEdge.MemberOfLocalGroup, [("Alice", "Remote Desktop Users"), ("Bob", "Remote Desktop Users"),
                                             ("Alice", "Direct Access Users")])
    graph.edge("Remote Desktop Users", ADEdge.RemoteInteractiveLogonRight, "PC")


def test_citrix_needs_direct_access_users_too(graph: Graph) -> None:
    citrix_computer(graph)
    graph.run(local_groups.RDP_RULE, citrix=True)
    assert graph.derived(ADEdge.CanRDP) == {("Alice", "PC")}


def test_citrix_support_off_ignores_direct_access_users(graph: Graph) -> None:
    citrix_computer(graph)
    graph.run(local_groups.RDP_RULE, citrix=False)
    assert graph.derived(ADEdge.CanRDP) == {("Alice", "PC"), ("Bob", "PC")}


def test_can_backup_without_user_rights_uses_the_backup_operators_members(graph: Graph) -> None:
    computer_with_groups(graph)
    local_group(graph, "Backup Operators", "551")
    graph.edge("Alice", ADEdge.MemberOfLocalGroup, "Backup Operators")
    graph.run(backup.RULE)
    assert graph.derived(ADEdge.CanBackup) == {("Alice", "PC")}


def test_can_backup_with_user_rights_needs_both_privileges(graph: Graph) -> None:
    graph.node("PC", ADNode.Computer, objectid=PC_SID, hasura=True)
    for name in ("Alice", "Bob"):
        graph.node(name, ADNode.User)
    local_group(graph, "Backup Operators", "551")
    graph.edges(ADEdge.MemberOfLocalGroup, [("Alice", "Backup Operators"), ("Bob", "Backup Operators")])
    graph.edges(ADEdge.BackupPrivilege, [("Backup Operators", "PC")])
    graph.edges(ADEdge.RestorePrivilege, [("Alice", "PC")])
    graph.run(backup.RULE)
    assert graph.derived(ADEdge.CanBackup) == {("Alice", "PC")}


def owner_graph(graph: Graph, dsheuristics: str | None) -> None:
    graph.domain("D", **({"dsheuristics": dsheuristics} if dsheuristics else {}))
    graph.node("Owner", ADNode.User)
    graph.node("DA", ADNode.Group, objectid=f"{DOMAIN_SID}-512")
    graph.node("Admin", ADNode.User)
    graph.edge("Admin", ADEdge.MemberOf, "DA")
    graph.node("Server", ADNode.Computer, domainsid=DOMAIN_SID)
    graph.node("Gmsa", ADNode.User, domainsid=DOMAIN_SID, gmsa=True)
    graph.node("Someone", ADNode.User, domainsid=DOMAIN_SID)
    for target in ("Server", "Gmsa", "Someone"):
        graph.edge("Owner", ADEdge.OwnsRaw, target, isacl=True, isinherited=False, inheritancehash="")
        graph.edge("Owner", ADEdge.WriteOwnerRaw, target, isacl=True, isinherited=True, inheritancehash="h1")
    graph.edge("Admin", ADEdge.OwnsRaw, "Server", isacl=True, isinherited=False)


def test_owns_and_write_owner_are_copied_when_implicit_owner_rights_are_not_blocked(graph: Graph) -> None:
    owner_graph(graph, "00000000000000000000000000000")
    graph.run(owns.RULE)
    assert graph.derived(ADEdge.Owns) == {("Owner", "Server"), ("Owner", "Gmsa"), ("Owner", "Someone"),
                                          ("Admin", "Server")}
    assert graph.derived(ADEdge.WriteOwner) == {("Owner", "Server"), ("Owner", "Gmsa"), ("Owner", "Someone")}
    properties = graph.edge_properties("Owner", ADEdge.WriteOwner, "Someone")
    assert properties["isacl"] is True and properties["isinherited"] is True
    assert properties["inheritancehash"] == "h1"


def test_block_owner_implicit_rights_limits_computer_derived_targets(graph: Graph) -> None:
    owner_graph(graph, "00000000000000000000000000001")
    graph.run(owns.RULE)
    # Owns on computers / gMSAs only for Domain Admins members; WriteOwner never on them.
    assert graph.derived(ADEdge.Owns) == {("Owner", "Someone"), ("Admin", "Server")}
    assert graph.derived(ADEdge.WriteOwner) == {("Owner", "Someone")}
