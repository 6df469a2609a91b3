"""PUT/GET/DELETE /api/v2/extensions and GET /api/v2/graph-schema/edges: OpenGraph schema extensions as BloodHound
9.x serves them, with the reference's answers, messages and permissions."""

from __future__ import annotations

import io
import zipfile

import httpx
import pytest

from tests.extension.conftest import (
    EDGES,
    EXTENSIONS,
    extension_id,
    flag_off,
    message,
    new_namespace,
    schema,
)
from tests.factories import user_with_role
from tests.openapi import assert_matches_own_document


def test_an_extension_is_created_listed_replaced_and_deleted(admin: httpx.Client) -> None:
    namespace = new_namespace()
    created = admin.put(EXTENSIONS, json=schema(namespace))
    assert created.status_code == 201, created.text
    assert created.content == b""

    listed = admin.get(EXTENSIONS)
    assert listed.status_code == 200
    assert_matches_own_document(admin, listed, EXTENSIONS)
    extensions = listed.json()["data"]["extensions"]
    assert [e["name"] for e in extensions] == sorted(e["name"] for e in extensions)  # by display name
    builtin = {e["namespace"]: e for e in extensions if e["is_builtin"]}
    assert {(e["name"], e["version"]) for e in builtin.values()} == {("Active Directory", "v0.0.1"),
                                                                     ("Azure", "v0.0.1")}
    ours = next(e for e in extensions if e["namespace"] == namespace)
    assert ours == {"id": ours["id"], "name": f"{namespace} Extension", "namespace": namespace,
                    "version": "v1.0.0", "is_builtin": False}

    replaced = admin.put(EXTENSIONS, json=schema(namespace, version="v1.1.0"))
    assert replaced.status_code == 200, replaced.text
    again = next(e for e in admin.get(EXTENSIONS).json()["data"]["extensions"] if e["namespace"] == namespace)
    assert again["id"] == ours["id"] and again["version"] == "v1.1.0"

    deleted = admin.delete(f"{EXTENSIONS}/{ours['id']}")
    assert deleted.status_code == 204, deleted.text
    assert namespace not in {e["namespace"] for e in admin.get(EXTENSIONS).json()["data"]["extensions"]}
    gone = admin.delete(f"{EXTENSIONS}/{ours['id']}")
    assert gone.status_code == 404
    assert message(gone) == f"no extension found matching extension id: {ours['id']}"


def test_a_replacement_drops_the_kinds_it_no_longer_declares_and_keeps_the_others(admin: httpx.Client) -> None:
    namespace = new_namespace()
    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    before = {e["name"]: e for e in admin.get(EDGES, params={"schema_names": f"eq:{namespace}-ext"})
              .json()["data"]}
    narrower = schema(namespace, relationship_kinds=[{"name": f"{namespace}_Reaches", "is_traversable": False}])
    assert admin.put(EXTENSIONS, json=narrower).status_code == 200
    after = admin.get(EDGES, params={"schema_names": f"eq:{namespace}-ext"}).json()["data"]
    assert [(e["name"], e["is_traversable"]) for e in after] == [(f"{namespace}_Reaches", False)]
    assert after[0]["id"] == before[f"{namespace}_Reaches"]["id"]


def test_graph_schema_edges_lists_every_declared_edge_kind_and_filters_them(admin: httpx.Client) -> None:
    namespace = new_namespace()
    name = f"{namespace}-ext"
    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    response = admin.get(EDGES)
    assert response.status_code == 200, response.text
    assert_matches_own_document(admin, response, EDGES)
    kinds = {e["name"]: e for e in response.json()["data"]}
    assert kinds[f"{namespace}_Reaches"] == {"id": kinds[f"{namespace}_Reaches"]["id"], "name": f"{namespace}_Reaches",
                                             "description": "can reach", "is_traversable": True,
                                             "schema_name": name, "is_builtin": False}
    assert kinds[f"{namespace}_Sees"]["is_traversable"] is False
    assert (kinds["MemberOf"]["schema_name"], kinds["MemberOf"]["is_traversable"], kinds["MemberOf"]["is_builtin"]) \
        == ("AD", True, True)
    assert (kinds["GetChanges"]["is_traversable"], kinds["AZScopedTo"]["schema_name"]) == (False, "AZ")

    def names(**params: str | list[str]) -> set[str]:
        found = admin.get(EDGES, params=params)
        assert found.status_code == 200, found.text
        return {e["name"] for e in found.json()["data"]}

    assert names(schema_names=f"eq:{name}") == {f"{namespace}_Reaches", f"{namespace}_Sees"}
    assert names(schema_names=f"eq:{name}", is_traversable="eq:true") == {f"{namespace}_Reaches"}
    assert names(schema_names=f"eq:{name}", is_traversable="neq:true") == {f"{namespace}_Sees"}
    # Several schema_names filters: any of them.
    both = names(schema_names=[f"eq:{name}", "eq:AZ"])
    assert f"{namespace}_Sees" in both and "AZContains" in both and "MemberOf" not in both
    assert names(schema_names=f"~eq:{namespace}") == {f"{namespace}_Reaches", f"{namespace}_Sees"}


@pytest.mark.parametrize(("params", "expected"), [
    ({"name": "eq:MemberOf"}, "the specified column cannot be filtered: name"),
    ({"is_traversable": "gt:true"}, "the specified filter predicate is not supported for this column: "
                                    "is_traversable gt"),
    ({"is_traversable": "true"}, "there are errors in the query parameter filters specified"),
    ({"is_traversable": "eq:maybe"}, "there are errors in the query parameter filters specified"),
])
def test_graph_schema_edges_refuses_bad_filters(admin: httpx.Client, params: dict[str, str], expected: str) -> None:
    response = admin.get(EDGES, params=params)
    assert response.status_code == 400
    assert message(response) == expected


def _without(body: dict, **changes: object) -> dict:
    return {**body, "schema": {**body["schema"], **changes}}


NS = "Tabc12345"
BASE = schema(NS)
INVALID = [
    (_without(BASE, name=" "), "graph schema validation error: graph schema extension name is required"),
    (_without(BASE, version=""), "graph schema validation error: graph schema extension version is required"),
    (_without(BASE, version="1.0.0"), "graph schema validation error: graph schema extension version is not valid "
                                      "semver: version string 1.0.0 does not start with the prefix v"),
    (_without(BASE, version="v1.0"),
     "graph schema validation error: graph schema extension version is not valid semver: expected version to be "
     "formatted: <major>.<minor>.<patch>[-<prerelease>]"),
    (_without(BASE, namespace=""), "graph schema validation error: graph schema extension namespace is required"),
    (_without(BASE, namespace="Tag"), "graph schema validation error: graph schema extension namespace 'Tag' uses "
                                      "reserved namespace 'tag'"),
    ({**BASE, "node_kinds": []}, "graph schema validation error: graph schema node kinds are required"),
    ({**BASE, "node_kinds": [{"name": "Host"}]},
     "graph schema validation error: graph schema node kind Host is missing extension namespace prefix"),
    ({**BASE, "node_kinds": [{"name": f"{NS}_"}]},
     "graph schema validation error: graph schema node kind cannot be empty after the namespace prefix"),
    ({**BASE, "node_kinds": [{"name": f"{NS}_A"}, {"name": f"{NS}_A"}]},
     f"graph schema validation error: duplicate graph kinds: {NS}_A"),
    ({**BASE, "node_kinds": [{"name": f"{NS}_A", "color": "green"}]},
     f"graph schema validation error: invalid hex color string green for node kind {NS}_A"),
    ({**BASE, "relationship_kinds": [{"name": f"{NS}_Host"}]},
     f"graph schema validation error: duplicate graph kinds: {NS}_Host"),
    ({**BASE, "relationship_kinds": [{"name": "Reaches"}]},
     "graph schema validation error: graph schema edge kind Reaches is missing extension namespace prefix"),
    ({**BASE, "environments": [{"environment_kind": f"{NS}_Tenant", "source_kind": "Src"}]},
     f"graph schema validation error: graph schema environment {NS}_Tenant not declared as a node kind"),
    ({**BASE, "environments": [{"environment_kind": f"{NS}_Host", "source_kind": ""}]},
     "graph schema validation error: graph schema environment source kind cannot be empty"),
    ({**BASE, "environments": [{"environment_kind": f"{NS}_Host", "source_kind": "S",
                                "principal_kinds": [f"{NS}_Nobody"]}]},
     f"graph schema validation error: graph schema environment principal kind {NS}_Nobody not declared node kind"),
    ({**BASE, "relationship_findings": [{"name": f"{NS}_Finding", "relationship_kind": f"{NS}_Nothing"}]},
     f"graph schema validation error: graph schema relationship finding relationship kind {NS}_Nothing not "
     "declared as a relationship kind"),
    ({**BASE, "node_kinds": [{"name": f"{NS}_{'x' * 300}"}]},
     f"graph schema validation error: graph schema name {NS}_{'x' * 30}... is longer than 256 characters"),
    ({**BASE, "node_kinds": [{"name": f"{NS}_A", "info": {"k": {"position": 2**31}}}]},
     f"error parsing node kind {NS}_A info: invalid kind info position: position 2147483648 for info key 'k' is "
     "outside the int32 range"),
]


@pytest.mark.parametrize(("body", "expected"), INVALID, ids=range(len(INVALID)))
def test_an_invalid_schema_is_refused_with_the_reference_message(admin: httpx.Client, body: dict,
                                                                 expected: str) -> None:
    response = admin.put(EXTENSIONS, json=body)
    assert response.status_code == 400, response.text
    assert message(response) == expected
    assert NS not in {e["namespace"] for e in admin.get(EXTENSIONS).json()["data"]["extensions"]}


def test_undecodable_bodies_and_other_content_types_are_refused(admin: httpx.Client) -> None:
    wrong_type = admin.put(EXTENSIONS, json={**BASE, "node_kinds": [{"name": f"{NS}_A", "is_display_kind": "yes"}]})
    assert wrong_type.status_code == 400
    assert message(wrong_type).startswith("unable to decode graph extension payload: node_kinds.0.is_display_kind")
    empty = admin.put(EXTENSIONS, content=b"", headers={"Content-Type": "application/json"})
    assert (empty.status_code, message(empty)) == (400, "unable to decode graph extension payload: EOF")
    xml = admin.put(EXTENSIONS, content=b"<schema/>", headers={"Content-Type": "application/xml"})
    assert xml.status_code == 415
    assert message(xml) == "invalid content-type: [application/xml]; Content type must be application/json"
    # null is a zero value, as for the reference's decoder; unknown keys are ignored.
    nulls = schema(new_namespace(), environments=None, relationship_findings=None, extra={"x": 1})
    nulls["node_kinds"][1]["description"] = None
    assert admin.put(EXTENSIONS, json=nulls).status_code == 201


def test_what_another_extension_holds_cannot_be_taken(admin: httpx.Client) -> None:
    namespace = new_namespace()
    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    same_namespace = admin.put(EXTENSIONS, json=schema(namespace, name="another"))
    assert (same_namespace.status_code, message(same_namespace)) == (
        400, f"graph schema validation error: duplicate graph schema extension namespace: {namespace}")
    builtin = admin.put(EXTENSIONS, json=schema("AD", name="AD"))
    assert (builtin.status_code, message(builtin)) == (
        400, "graph schema upsert error: cannot modify a built-in graph extension")
    ad = extension_id(admin, "Active Directory")
    refused = admin.delete(f"{EXTENSIONS}/{ad}")
    assert (refused.status_code, message(refused)) == (400, "built-in extensions cannot be deleted")
    for raw in ("abc", "2147483648", "1.5"):
        malformed = admin.delete(f"{EXTENSIONS}/{raw}")
        assert (malformed.status_code, message(malformed)) == (400, "id is malformed")


def test_only_an_administrator_writes_extensions_and_readers_list_edge_kinds(admin: httpx.Client) -> None:
    namespace = new_namespace()
    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    ours = extension_id(admin, f"{namespace} Extension")
    _, user = user_with_role(admin, "User")
    refused = admin.put(EXTENSIONS, json=schema(new_namespace()), headers=user)
    assert (refused.status_code, message(refused)) == (
        403, "user does not have sufficient permissions to create or update an extension")
    not_deleted = admin.delete(f"{EXTENSIONS}/{ours}", headers=user)
    assert (not_deleted.status_code, message(not_deleted)) == (
        403, "user does not have sufficient permissions to delete an extension")
    assert admin.get(EXTENSIONS, headers=user).status_code == 200
    assert admin.get(EDGES, headers=user).status_code == 200
    _, uploader = user_with_role(admin, "Upload-Only")
    assert admin.get(EDGES, headers=uploader).status_code == 403
    assert httpx.get(f"{admin.base_url}{EXTENSIONS}").status_code == 401


def test_every_route_is_not_found_while_the_flag_is_off(admin: httpx.Client) -> None:
    with flag_off(admin):
        for response in (admin.put(EXTENSIONS, json=schema(new_namespace())), admin.get(EXTENSIONS),
                         admin.delete(f"{EXTENSIONS}/1"), admin.get(EDGES)):
            assert (response.status_code, message(response)) == (404, "resource not found")


def _bundle(**files: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_a_zip_bundle_holding_the_schema_is_accepted(admin: httpx.Client) -> None:
    import json

    namespace = new_namespace()
    bundle = _bundle(**{"schema.json": json.dumps(schema(namespace)).encode(), "saved_queries.json": b"{}"})
    created = admin.put(EXTENSIONS, content=bundle, headers={"Content-Type": "application/zip"})
    assert created.status_code == 201, created.text
    assert namespace in {e["namespace"] for e in admin.get(EXTENSIONS).json()["data"]["extensions"]}
    stray = admin.put(EXTENSIONS, content=_bundle(**{"schema.json": b"{}", "notes.txt": b"hi"}),
                      headers={"Content-Type": "application/zip"})
    assert (stray.status_code, message(stray)) == (400, "unexpected file 'notes.txt' in zip archive")
    missing = admin.put(EXTENSIONS, content=_bundle(**{"pz_rules.json": b"{}"}),
                        headers={"Content-Type": "application/zip"})
    assert (missing.status_code, message(missing)) == (
        400, "required component 'schema.json' not found in extension bundle")
    broken = admin.put(EXTENSIONS, content=b"PK not really", headers={"Content-Type": "application/zip"})
    assert broken.status_code == 400
