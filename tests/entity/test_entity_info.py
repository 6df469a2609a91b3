"""Entity panels and related lists over the two SharpHound labs; every expected answer is computed from
the collector files (tests/labs.py), never from the code under test."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from tests.labs import ADCS, TESTLAB, Lab, records
from tests.openapi import assert_matches_spec

A, T = Lab(ADCS), Lab(TESTLAB)
ADCS_SID = "S-1-5-21-909015691-3030120388-2582151266"
COMPUTERS_CONTAINER = "CC7D845D-04FF-470C-8E6B-8C810AB1B4FB"
ECA = records(ADCS, "enterprisecas")[0]
ROOT_CA, AIA_CA, NTAUTH = (records(ADCS, name)[0] for name in ("rootcas", "aiacas", "ntauthstores"))


def everything(client: httpx.Client, path: str, **params: Any) -> tuple[int, set[str]]:
    response = client.get(path, params={"limit": 1000, **params})
    assert response.status_code == 200, response.text
    body = response.json()
    return body["count"], {entry["objectID"] for entry in body["data"]}


def message(response: httpx.Response) -> str:
    return str(response.json()["errors"][0]["message"])


def controllers_from_aces(record: dict[str, Any], lab: Lab) -> set[str]:
    """Principals with an ACL right on the object, and every (transitive) member of those that are groups."""
    direct = {ace["PrincipalSID"].upper() for ace in record["Aces"]}
    return direct | {m for principal in direct for m in lab.members(principal)}


def test_container_panel_counts_its_controllers(admin: httpx.Client, labs: Database) -> None:
    expected = controllers_from_aces(A.containers[COMPUTERS_CONTAINER], A)
    response = admin.get(f"/api/v2/containers/{COMPUTERS_CONTAINER}")
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/containers/{object_id}")
    data = response.json()["data"]
    assert data["controllers"] == len(expected)
    assert data["props"]["name"] == "COMPUTERS@ESC1.LOCAL"
    assert "Container" in data["kinds"]
    listed = admin.get(f"/api/v2/containers/{COMPUTERS_CONTAINER}/controllers", params={"limit": 1000})
    assert_matches_spec(listed, "/api/v2/containers/{object_id}/controllers")
    assert everything(admin, f"/api/v2/containers/{COMPUTERS_CONTAINER}/controllers") == (len(expected), expected)


def test_counts_false_gives_only_props(admin: httpx.Client, labs: Database) -> None:
    for params in ({"counts": "false"}, {"count": "false"}, {"counts": "0"}):
        response = admin.get(f"/api/v2/containers/{COMPUTERS_CONTAINER}", params=params)
        assert response.status_code == 200, response.text
        assert set(response.json()["data"]) == {"props"}
    response = admin.get(f"/api/v2/containers/{COMPUTERS_CONTAINER}", params={"counts": "maybe"})
    assert response.status_code == 400
    assert message(response) == "there are errors in the query parameter filters specified"


def test_unknown_objects_and_wrong_kinds_are_not_found(admin: httpx.Client, labs: Database) -> None:
    for path in (f"/api/v2/containers/{ADCS_SID}-512", "/api/v2/users/NOPE", "/api/v2/meta/NOPE",
                 "/api/v2/enterprisecas/NOPE/pki-hierarchy", f"/api/v2/groups/{ADCS_SID}-1105/members"):
        response = admin.get(path)
        assert response.status_code == 404, path
        assert message(response) in ("node not found",)


def test_pki_hierarchy_of_the_enterprise_ca(admin: httpx.Client, labs: Database) -> None:
    # The CA is hosted by its computer; its certificate is the root's and the AIA object's; it is in the
    # NTAuth store; the root CA and the store stand for the domain.
    expected = {ECA["HostingComputer"].upper(), ROOT_CA["ObjectIdentifier"].upper(),
                AIA_CA["ObjectIdentifier"].upper(), NTAUTH["ObjectIdentifier"].upper(), ROOT_CA["DomainSID"].upper()}
    path = f"/api/v2/enterprisecas/{ECA['ObjectIdentifier']}/pki-hierarchy"
    response = admin.get(path)
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/enterprisecas/{object_id}/pki-hierarchy")
    body = response.json()
    assert (body["count"], body["skip"], body["limit"]) == (len(expected), 0, 10)
    assert {e["objectID"] for e in body["data"]} == expected
    labels = {e["objectID"]: e["label"] for e in body["data"]}
    assert labels[ROOT_CA["ObjectIdentifier"].upper()] == "RootCA"
    assert labels[ECA["HostingComputer"].upper()] == "Computer"
    by_name = admin.get(path, params={"sort_by": "name"}).json()["data"]
    assert [e["name"] for e in by_name] == sorted(e["name"] for e in by_name)
    by_oid = admin.get(path, params={"sort_by": "-objectid", "skip": 1, "limit": 2}).json()
    assert [e["objectID"] for e in by_oid["data"]] == sorted(expected, reverse=True)[1:3]
    assert (by_oid["count"], by_oid["skip"], by_oid["limit"]) == (len(expected), 1, 2)


def test_pki_hierarchy_of_the_root_and_aia_cas(admin: httpx.Client, labs: Database) -> None:
    below = {ECA["ObjectIdentifier"].upper(), ECA["HostingComputer"].upper()}
    assert everything(admin, f"/api/v2/rootcas/{ROOT_CA['ObjectIdentifier']}/pki-hierarchy")[1] == below
    assert everything(admin, f"/api/v2/aiacas/{AIA_CA['ObjectIdentifier']}/pki-hierarchy")[1] == below
    panel = admin.get(f"/api/v2/enterprisecas/{ECA['ObjectIdentifier']}").json()["data"]
    assert panel["pki-hierarchy"] == 5
    assert panel["published-templates"] == len(ECA["EnabledCertTemplates"])


def test_pki_hierarchy_as_a_graph(admin: httpx.Client, labs: Database) -> None:
    response = admin.get(f"/api/v2/enterprisecas/{ECA['ObjectIdentifier']}/pki-hierarchy", params={"type": "graph"})
    assert response.status_code == 200, response.text
    graph = response.json()
    assert "data" not in graph
    nodes = {item["data"]["objectid"] for key, item in graph.items() if not key.startswith("rel_")}
    assert ECA["ObjectIdentifier"].upper() in nodes and ROOT_CA["DomainSID"].upper() in nodes
    kinds = {item["label"]["text"] for key, item in graph.items() if key.startswith("rel_")}
    assert {"HostsCAService", "EnterpriseCAFor", "TrustedForNTAuth", "RootCAFor", "NTAuthStoreFor"} <= kinds


@pytest.mark.parametrize(("params", "expected"), [
    ({"type": "count"}, "there are errors in the query parameters: unsupported result type for this query"),
    ({"type": "nonsense"}, "there are errors in the query parameters: unsupported result type for this query"),
    ({"sort_by": "kinds"}, "column format does not support sorting: kinds"),
    ({"skip": "-1"}, "invalid skip: -1"),
    ({"limit": "ten"}, "invalid limit: ten"),
    ({"skip": "50"}, "invalid skip: 50"),
])
def test_list_parameter_errors(admin: httpx.Client, labs: Database, params: dict[str, str], expected: str) -> None:
    response = admin.get(f"/api/v2/enterprisecas/{ECA['ObjectIdentifier']}/pki-hierarchy", params=params)
    assert response.status_code == 400
    assert message(response) == expected


def test_user_memberships_and_group_members(admin: httpx.Client, labs: Database) -> None:
    for lab in (A, T):
        for oid in lab.users:
            if not lab.memberships(oid):
                continue
            assert everything(admin, f"/api/v2/users/{oid}/memberships") == (len(lab.memberships(oid)),
                                                                             lab.memberships(oid))
        for oid in lab.groups:
            members = lab.members(oid)
            assert everything(admin, f"/api/v2/groups/{oid}/members") == (len(members), members), oid
    domain_admins = f"{ADCS_SID}-512"
    panel = admin.get(f"/api/v2/groups/{domain_admins}").json()["data"]
    assert panel["members"] == len(A.members(domain_admins))
    assert panel["membership"] == len(A.memberships(domain_admins))
    assert {"sessions", "adminRights", "rdpRights", "dcomRights", "psRemoteRights", "controllables",
            "controllers", "backupRights"} <= set(panel)


def test_sessions_from_the_sessions_file(admin: httpx.Client, labs: Database) -> None:
    rows = records(TESTLAB, "sessions")
    for row in rows:
        computer, user = row["ComputerSID"].upper(), row["UserSID"].upper()
        expected_users = {r["UserSID"].upper() for r in rows if r["ComputerSID"].upper() == computer}
        assert everything(admin, f"/api/v2/computers/{computer}/sessions")[1] >= expected_users
        assert computer in everything(admin, f"/api/v2/users/{user}/sessions")[1]
        user_panel = admin.get(f"/api/v2/users/{user}")
        assert user_panel.status_code == 200
        assert user_panel.json()["data"]["sessions"] >= 1


def test_domain_panel_counts_objects_of_the_domain(admin: httpx.Client, labs: Database) -> None:
    users = {oid for oid, u in A.users.items() if u["Properties"].get("domainsid") == ADCS_SID}
    groups = {oid for oid, g in A.groups.items() if g["Properties"].get("domainsid") == ADCS_SID}
    panel = admin.get(f"/api/v2/domains/{ADCS_SID}")
    assert panel.status_code == 200, panel.text
    data = panel.json()["data"]
    assert data["users"] == len(users) and data["groups"] == len(groups)
    assert data["computers"] == len(A.computers)
    assert everything(admin, f"/api/v2/domains/{ADCS_SID}/users")[1] == users
    dcsyncers = everything(admin, f"/api/v2/domains/{ADCS_SID}/dc-syncers")[1]
    # tests/analysis/test_lab.py reads the DCSync holders from the domain's ACEs: ADMINISTRATORS and ESC1-DC.
    assert dcsyncers == {"ESC1.LOCAL-S-1-5-32-544", f"{ADCS_SID}-1000"}


def test_every_panel_answers_with_its_counts(admin: httpx.Client, labs: Database) -> None:
    samples = {
        "users": next(iter(A.users)), "groups": next(iter(A.groups)), "computers": next(iter(A.computers)),
        "domains": ADCS_SID, "containers": COMPUTERS_CONTAINER, "ous": records(ADCS, "ous")[0]["ObjectIdentifier"],
        "gpos": records(ADCS, "gpos")[0]["ObjectIdentifier"], "aiacas": AIA_CA["ObjectIdentifier"],
        "rootcas": ROOT_CA["ObjectIdentifier"], "enterprisecas": ECA["ObjectIdentifier"],
        "ntauthstores": NTAUTH["ObjectIdentifier"],
        "certtemplates": records(ADCS, "certtemplates")[0]["ObjectIdentifier"],
        "issuancepolicies": records(ADCS, "issuancepolicies")[0]["ObjectIdentifier"],
    }
    from houndgraph.entity.ad_panels import ENTITIES
    for slug, oid in samples.items():
        response = admin.get(f"/api/v2/{slug}/{oid}")
        assert response.status_code == 200, (slug, response.text)
        data = response.json()["data"]
        assert {c.key for c in ENTITIES[slug].counts} <= set(data), slug
        assert all(isinstance(data[c.key], int) for c in ENTITIES[slug].counts)
        for list_slug in ENTITIES[slug].list_slugs:
            listed = admin.get(f"/api/v2/{slug}/{oid}/{list_slug}")
            assert listed.status_code == 200, (slug, list_slug, listed.text)
