"""Azure entity panels and related lists over a small hand-drawn tenant; every expected count is worked out
by hand from the drawing below (the reasoning sits next to each expectation).

    T contains U1 U2 U3 G1 G2 SP1 A1 D1 M1;  M1 contains S1;  S1 contains RG1;  RG1 contains VM1 KV1 VM2
    U1, U2, G2 -MemberOf-> G1 (role assignable);  U2 -MemberOf-> G2 (not role assignable)
    G1 -HasRole-> R1;  G2 -HasRole-> R2;  U3 -HasRole-> R2;  U1 -Grant-> R1;  U2 -RoleApprover-> R1
    G1 -Owner-> S1;  U1 -ResetPassword-> U3;  U3 -VMAdminLogin-> VM1;  G2 -Contributor-> VM2
    U3 -GetKeys-> KV1;  U1 -GetCertificates-> KV1;  G2 -GetSecrets-> KV1
    SP1 -AZMGDirectory_ReadWrite_All-> T;  A1 -RunsAs-> SP1
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from tests.conftest import empty_graph_tables
from tests.labs import clear
from tests.openapi import assert_matches_component, assert_matches_own_document

NODES = {
    "T": "AZTenant", "U1": "AZUser", "U2": "AZUser", "U3": "AZUser", "G1": "AZGroup", "G2": "AZGroup",
    "SP1": "AZServicePrincipal", "A1": "AZApp", "D1": "AZDevice", "M1": "AZManagementGroup",
    "S1": "AZSubscription", "RG1": "AZResourceGroup", "VM1": "AZVM", "VM2": "AZVM", "KV1": "AZKeyVault",
    "R1": "AZRole", "R2": "AZRole",
}
EDGES = [
    *(("T", "AZContains", x) for x in ("U1", "U2", "U3", "G1", "G2", "SP1", "A1", "D1", "M1")),
    ("M1", "AZContains", "S1"), ("S1", "AZContains", "RG1"),
    *(("RG1", "AZContains", x) for x in ("VM1", "KV1", "VM2")),
    ("U1", "AZMemberOf", "G1"), ("U2", "AZMemberOf", "G1"), ("G2", "AZMemberOf", "G1"), ("U2", "AZMemberOf", "G2"),
    ("G1", "AZHasRole", "R1"), ("G2", "AZHasRole", "R2"), ("U3", "AZHasRole", "R2"), ("U1", "AZGrant", "R1"),
    ("U2", "AZRoleApprover", "R1"), ("G1", "AZOwner", "S1"), ("U1", "AZResetPassword", "U3"),
    ("U3", "AZVMAdminLogin", "VM1"), ("G2", "AZContributor", "VM2"), ("U3", "AZGetKeys", "KV1"),
    ("U1", "AZGetCertificates", "KV1"), ("G2", "AZGetSecrets", "KV1"),
    ("SP1", "AZMGDirectory_ReadWrite_All", "T"), ("A1", "AZRunsAs", "SP1"),
]


def oid(name: str) -> str:
    return f"AZ-{name}-0000"


@pytest.fixture(scope="module")
def tenant(database: Database) -> Iterator[Database]:
    with database.connect_raw() as conn:
        empty_graph_tables(conn)
        names = {"AZBase", *NODES.values(), *(kind for _, kind, _ in EDGES)}
        conn.execute("INSERT INTO kind (name) SELECT unnest(%s::text[]) ON CONFLICT DO NOTHING", (sorted(names),))
        for name, kind in NODES.items():
            props = {"objectid": oid(name), "name": f"{name}@CONTOSO", "tenantid": oid("T")}
            if kind == "AZGroup":
                props["isassignabletorole"] = name == "G1"
            conn.execute("INSERT INTO node (kind_ids, properties) SELECT ARRAY(SELECT id FROM kind WHERE name = "
                         "ANY(%s) ORDER BY name = 'AZBase'), %s::jsonb", ([kind, "AZBase"], json.dumps(props)))
        for start, kind, end in EDGES:
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id, properties) SELECT s.id, e.id, k.id, '{}' "
                         "FROM node s, node e, kind k WHERE s.properties->>'objectid' = %s "
                         "AND e.properties->>'objectid' = %s AND k.name = %s", (oid(start), oid(end), kind))
        conn.commit()
    yield database
    clear(database)


def panel(client: httpx.Client, entity_type: str, name: str, **params: str) -> dict[str, Any]:
    response = client.get(f"/api/v2/azure/{entity_type}", params={"object_id": oid(name), **params})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def related(client: httpx.Client, entity_type: str, name: str, related_type: str) -> set[str]:
    response = client.get(f"/api/v2/azure/{entity_type}", params={
        "object_id": oid(name), "related_entity_type": related_type, "limit": "1000"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert_matches_component(body, "api.response.pagination")
    names = {entry["props"]["objectid"].split("-")[1] for entry in body["data"]}
    assert body["count"] == len(names)
    return names


def message(response: httpx.Response) -> str:
    assert_matches_component(response.json(), "api.error-wrapper")
    return str(response.json()["errors"][0]["message"])


def test_user_panel(admin: httpx.Client, tenant: Database) -> None:
    data = panel(admin, "users", "U1")
    assert data["kind"] == "AZUser" and set(data["kinds"]) == {"AZUser", "AZBase"}
    assert data["props"]["name"] == "U1@CONTOSO" and data["isTierZero"] is False and data["isOwnedObject"] is False
    # membership: G1 only (direct); roles: R1 through role-assignable G1; no execution rights;
    # outbound control: U3 (ResetPassword), R1 (Grant), and S1's leaf resources VM1, KV1, VM2 through G1's
    # ownership; inbound control: T, which contains U1.
    assert {k: data[k] for k in ("group_membership", "roles", "execution_privileges", "outbound_object_control",
                                 "inbound_object_control")} == {
        "group_membership": 1, "roles": 1, "execution_privileges": 0, "outbound_object_control": 5,
        "inbound_object_control": 1}
    assert related(admin, "users", "U1", "outbound-control") == {"U3", "R1", "VM1", "KV1", "VM2"}
    # U2: roles from G1 only (G2 is not role assignable); Contributor on VM2 through G2 is an execution right.
    u2 = panel(admin, "users", "U2")
    assert (u2["roles"], u2["group_membership"], u2["execution_privileges"]) == (1, 2, 1)
    assert related(admin, "users", "U2", "outbound-execution-privileges") == {"VM2"}
    # U3: R2 held directly; VMAdminLogin on VM1; controlled by T (contains) and U1 (ResetPassword).
    u3 = panel(admin, "users", "U3")
    assert (u3["roles"], u3["execution_privileges"], u3["inbound_object_control"]) == (1, 1, 2)
    assert related(admin, "users", "U3", "inbound-control") == {"T", "U1"}


def test_group_panels(admin: httpx.Client, tenant: Database) -> None:
    g1 = panel(admin, "groups", "G1")
    assert {k: g1[k] for k in ("roles", "group_members", "group_membership", "outbound_object_control",
                               "inbound_object_control")} == {
        "roles": 1, "group_members": 3, "group_membership": 0, "outbound_object_control": 3,
        "inbound_object_control": 1}
    assert related(admin, "groups", "G1", "group-members") == {"U1", "U2", "G2"}
    # G2: R2 directly, not R1 (a group does not inherit through another group); it controls VM2 itself
    # and S1's resources through G1.
    g2 = panel(admin, "groups", "G2")
    assert (g2["roles"], g2["group_members"], g2["group_membership"], g2["outbound_object_control"]) == (1, 1, 1, 3)
    assert related(admin, "groups", "G2", "roles") == {"R2"}
    assert related(admin, "groups", "G2", "group-membership") == {"G1"}


def test_container_descendents(admin: httpx.Client, tenant: Database) -> None:
    t = panel(admin, "tenants", "T")
    assert t["inbound_object_control"] == 0  # SP1's Graph app role is not a control edge
    counts = t["descendents"]["descendent_counts"]
    assert {k: v for k, v in counts.items() if v} == {
        "AZUser": 3, "AZGroup": 2, "AZManagementGroup": 1, "AZSubscription": 1, "AZResourceGroup": 1, "AZVM": 2,
        "AZKeyVault": 1, "AZApp": 1, "AZServicePrincipal": 1, "AZDevice": 1}
    assert len(counts) == 17 and counts["AZLogicApp"] == 0
    s1 = panel(admin, "subscriptions", "S1")
    assert {k: v for k, v in s1["descendents"]["descendent_counts"].items() if v} == {
        "AZResourceGroup": 1, "AZVM": 2, "AZKeyVault": 1}
    # M1 contains it; G1 owns it, with G1's members U1, U2, G2 (U2 again through G2).
    assert s1["inbound_object_control"] == 5
    assert related(admin, "subscriptions", "S1", "inbound-control") == {"M1", "G1", "U1", "U2", "G2"}
    assert set(panel(admin, "management-groups", "M1")["descendents"]["descendent_counts"]) >= {"AZSubscription"}
    assert panel(admin, "resource-groups", "RG1")["descendents"]["descendent_counts"]["AZVM"] == 2
    assert related(admin, "tenants", "T", "descendent-virtual-machines") == {"VM1", "VM2"}
    assert related(admin, "management-groups", "M1", "descendent-key-vaults") == {"KV1"}


def test_resource_panels(admin: httpx.Client, tenant: Database) -> None:
    vm1, vm2 = panel(admin, "vms", "VM1"), panel(admin, "vms", "VM2")
    assert (vm1["inboundExecutionPrivileges"], vm1["inbound_object_control"]) == (1, 1)
    # G2's Contributor reaches VM2 through its member U2 (only the leaf counts as an execution privilege);
    # controllers: RG1 (contains), G2 and its member U2.
    assert (vm2["inboundExecutionPrivileges"], vm2["inbound_object_control"]) == (1, 3)
    assert related(admin, "vms", "VM2", "inbound-execution-privileges") == {"U2"}
    kv = panel(admin, "key-vaults", "KV1")
    assert kv["Readers"] == {"KeyReaders": 1, "CertificateReaders": 1, "SecretReaders": 1, "AllReaders": 3}
    assert kv["inbound_object_control"] == 1
    assert related(admin, "key-vaults", "KV1", "secret-readers") == {"U2"}
    assert related(admin, "key-vaults", "KV1", "all-readers") == {"U1", "U2", "U3"}
    sp = panel(admin, "service-principals", "SP1")
    assert {k: sp[k] for k in ("roles", "inbound_object_control", "outbound_object_control",
                               "inbound-abusable-app-role-assignments", "outbound-abusable-app-role-assignments")} == {
        "roles": 0, "inbound_object_control": 1, "outbound_object_control": 0,
        "inbound-abusable-app-role-assignments": 0, "outbound-abusable-app-role-assignments": 1}
    for entity_type, name in (("devices", "D1"), ("applications", "A1")):
        assert panel(admin, entity_type, name)["inbound_object_control"] == 1
    assert panel(admin, "devices", "D1")["inboundExecutionPrivileges"] == 0
    # Any Azure node answers under any entity type, as in the reference; the base panel counts outbound control.
    assert panel(admin, "az-base", "U1")["outbound_object_control"] == 5


def test_role_panel(admin: httpx.Client, tenant: Database) -> None:
    r1 = panel(admin, "roles", "R1")
    # Active: G1 unrolled to its leaf members U1 and U2 (G2 is a member too, but has U2 under it).
    assert (r1["active_assignments"], r1["pim_assignments"], r1["approvers"]) == (2, 1, 1)
    assert related(admin, "roles", "R1", "active-assignments") == {"U1", "U2"}
    assert related(admin, "roles", "R2", "active-assignments") == {"U2", "U3"}
    assert related(admin, "roles", "R1", "pim-assignments") == {"U1"}
    assert related(admin, "roles", "R1", "role-approvers") == {"U2"}


def test_counts_false_and_paging(admin: httpx.Client, tenant: Database) -> None:
    assert set(panel(admin, "users", "U1", counts="false")) == {"kind", "kinds", "isTierZero", "isOwnedObject",
                                                                "props"}
    params = {"object_id": oid("G1"), "related_entity_type": "group-members"}
    full = admin.get("/api/v2/azure/groups", params=params).json()
    assert (full["count"], full["skip"], full["limit"]) == (3, 0, 100)
    ids = [entry["props"]["objectid"] for entry in full["data"]]
    page = admin.get("/api/v2/azure/groups", params={**params, "skip": "1", "limit": "1"}).json()
    assert (page["count"], [e["props"]["objectid"] for e in page["data"]]) == (3, ids[1:2])
    graph = admin.get("/api/v2/azure/groups", params={**params, "type": "graph"})
    assert graph.status_code == 200
    assert_matches_component(graph.json(), "model.bh-graph.graph")
    # The members' MemberOf edges among the drawn nodes: the three into G1, and U2's into G2.
    edges = [item for key, item in graph.json().items() if key.startswith("rel_")]
    assert len(edges) == 4 and {e["label"]["text"] for e in edges} == {"AZMemberOf"}


def test_answers_match_the_service_document(admin: httpx.Client, tenant: Database) -> None:
    """Panels (counts, the key vault's `Readers` object, a container's descendents, no counts), a related
    list as a page and as the legacy graph map: each as /api/openapi.json describes it."""
    for entity_type, name, params in (("users", "U1", {}), ("key-vaults", "KV1", {}), ("tenants", "T", {}),
                                      ("users", "U1", {"counts": "false"}),
                                      ("groups", "G1", {"related_entity_type": "group-members"}),
                                      ("groups", "G1", {"related_entity_type": "group-members", "type": "graph"})):
        response = admin.get(f"/api/v2/azure/{entity_type}", params={"object_id": oid(name), **params})
        assert response.status_code == 200, response.text
        assert_matches_own_document(admin, response, "/api/v2/azure/{entity_type}")
    assert_matches_own_document(admin, admin.get("/api/v2/azure/users"), "/api/v2/azure/{entity_type}")


@pytest.mark.parametrize(("path", "params", "status", "text"), [
    ("users", {}, 400, "query parameter object_id is required"),
    ("hamsters", {"object_id": oid("U1")}, 400, "there are errors in the query parameter filters specified"),
    ("users", {"object_id": "AZ-NOPE"}, 404, "not found"),
    ("users", {"object_id": oid("U1"), "counts": "maybe"}, 400,
     "there are errors in the query parameter filters specified"),
    ("users", {"object_id": oid("U1"), "related_entity_type": "hamsters"}, 404,
     "no matching related entity list type for hamsters"),
    ("users", {"object_id": oid("U1"), "related_entity_type": "roles", "type": "count"}, 400,
     'query parameter "type" is malformed: invalid return type requested for related entities'),
    ("users", {"object_id": oid("U1"), "related_entity_type": "roles", "skip": "-1"}, 400,
     'query parameter "skip" is malformed: invalid skip: -1'),
    ("users", {"object_id": oid("U1"), "related_entity_type": "roles", "limit": "x"}, 400,
     'query parameter "limit" is malformed: invalid limit: x'),
    ("users", {"object_id": oid("U1"), "related_entity_type": "roles", "skip": "5"}, 400, "invalid skip: 5"),
    ("users", {"object_id": "AZ-NOPE", "related_entity_type": "roles"}, 404, "not found"),
])
def test_validation_messages(admin: httpx.Client, tenant: Database, path: str, params: dict[str, str], status: int,
                             text: str) -> None:
    response = admin.get(f"/api/v2/azure/{path}", params=params)
    assert response.status_code == status, response.text
    assert message(response) == text
