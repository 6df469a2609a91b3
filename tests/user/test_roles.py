"""GET /api/v2/roles and GET /api/v2/permissions."""

from __future__ import annotations

import httpx

from tests.factories import ROLE_IDS, user_with_role
from tests.openapi import assert_matches_component, assert_matches_spec
from tests.user.helpers import assert_error


def test_roles_are_the_reference_six_with_their_permissions(admin: httpx.Client) -> None:
    response = admin.get("/api/v2/roles")
    assert response.status_code == 200
    assert_matches_spec(response, "/api/v2/roles")
    roles = {role["name"]: role for role in response.json()["data"]["roles"]}
    assert {name: role["id"] for name, role in roles.items()} == ROLE_IDS

    def granted(name: str) -> set[str]:
        return {f"{p['authority']}.{p['name']}" for p in roles[name]["permissions"]}

    assert granted("Upload-Only") == {"clients.Tasking", "graphdb.Ingest", "graphdb.ReadIngest"}
    assert {"auth.ManageUsers", "db.Wipe", "audit_log.Read"} <= granted("Administrator")
    assert not {"auth.ManageUsers", "db.Wipe", "auth.ReadUsers"} & granted("Power User")
    assert {"auth.ReadUsersMinimal", "auth.CreateToken", "graphdb.Read"} <= granted("Read-Only")
    assert granted("Auditor") == {
        "app.ReadAppConfig", "risks.GenerateReport", "audit_log.Read", "auth.CreateToken", "auth.ManageSelf",
        "auth.ReadUsers", "auth.ReadUsersMinimal", "auth.ReadProviders", "graphdb.Read", "graphdb.ReadIngest",
        "saved_queries.Read", "clients.Read", "collection.ReadJobs", "opengraph.Read", "alerts.Read"}


def test_the_administrator_holds_the_reference_9_8_permission_table(admin: httpx.Client) -> None:
    permissions = admin.get("/api/v2/permissions").json()["data"]["permissions"]
    names = {f"{p['authority']}.{p['name']}" for p in permissions}
    assert names == {
        "app.ReadAppConfig", "app.WriteAppConfig", "risks.GenerateReport", "risks.ManageRisks", "audit_log.Read",
        "auth.CreateToken", "auth.ManageProviders", "auth.ManageSelf", "auth.ManageUsers", "auth.ReadUsers",
        "auth.ReadUsersMinimal", "auth.ReadProviders", "clients.Manage", "clients.Read", "clients.Tasking",
        "collection.ManageJobs", "collection.ReadJobs", "graphdb.Ingest", "graphdb.Mutate", "graphdb.Read",
        "graphdb.Write", "graphdb.ReadIngest", "opengraph.Read", "opengraph.Write", "saved_queries.Read",
        "saved_queries.Write", "db.Wipe", "analysis.Request", "alerts.Read", "alerts.Manage"}
    administrator = admin.get(f"/api/v2/roles/{ROLE_IDS['Administrator']}").json()["data"]
    assert {f"{p['authority']}.{p['name']}" for p in administrator["permissions"]} == names


def test_an_auditor_reads_the_audit_log_and_a_power_user_does_not(admin: httpx.Client) -> None:
    _, auditor = user_with_role(admin, "Auditor")
    assert admin.get("/api/v2/audit", headers=auditor).status_code == 200
    _, power_user = user_with_role(admin, "Power User")
    assert_error(admin.get("/api/v2/audit", headers=power_user), 403, "not authorized")


def test_roles_sort_and_filter(admin: httpx.Client) -> None:
    names = [role["name"] for role in admin.get("/api/v2/roles", params={"sort_by": "-name"}).json()["data"]["roles"]]
    assert names == sorted(ROLE_IDS, reverse=True)
    filtered = admin.get("/api/v2/roles", params={"name": "~eq:user"}).json()["data"]["roles"]
    assert {role["name"] for role in filtered} == {"Power User", "User"}
    assert [r["id"] for r in admin.get("/api/v2/roles", params={"id": "gt:3"}).json()["data"]["roles"]] == [4, 5, 6]
    assert_error(admin.get("/api/v2/roles", params={"sort_by": "permissions"}), 400,
                 "column format does not support sorting: permissions")


def test_permissions_list(admin: httpx.Client) -> None:
    response = admin.get("/api/v2/permissions", params={"authority": "eq:auth", "sort_by": "name"})
    assert response.status_code == 200
    assert_matches_spec(response, "/api/v2/permissions")
    names = [p["name"] for p in response.json()["data"]["permissions"]]
    assert names == sorted(names) and "ManageUsers" in names
    assert_error(admin.get("/api/v2/permissions", params={"role": "eq:x"}), 400,
                 "the specified column cannot be filtered: role")


def test_roles_need_manage_self(admin: httpx.Client) -> None:
    _, read_only = user_with_role(admin, "Read-Only")
    assert admin.get("/api/v2/roles", headers=read_only).status_code == 200
    _, upload_only = user_with_role(admin, "Upload-Only")
    assert_error(admin.get("/api/v2/roles", headers=upload_only), 403, "not authorized")
    assert_error(admin.get("/api/v2/permissions", headers=upload_only), 403, "not authorized")


def test_one_role_and_one_permission_by_id(admin: httpx.Client) -> None:
    response = admin.get(f"/api/v2/roles/{ROLE_IDS['Read-Only']}")
    assert response.status_code == 200
    role = response.json()["data"]
    assert role["name"] == "Read-Only" and role["permissions"]
    assert_matches_component(role, "model.role")
    permission = role["permissions"][0]
    response = admin.get(f"/api/v2/permissions/{permission['id']}")
    assert response.status_code == 200 and response.json()["data"] == permission
    assert_error(admin.get("/api/v2/roles/999"), 404, "resource not found")
    assert_error(admin.get("/api/v2/permissions/999999"), 404, "resource not found")
    assert_error(admin.get("/api/v2/roles/abc"), 400, "id is malformed")
    assert_error(admin.get("/api/v2/permissions/abc"), 400, "id is malformed")
