"""SAML providers over HTTP: seed operations 2 and 1, listing, reading, updating, deleting, and the service
provider metadata an identity provider fetches."""

from __future__ import annotations

import httpx
import pytest
from defusedxml import ElementTree
from sqlalchemy import select
from sqlalchemy.orm import Session

from houndgraph.db import Database
from houndgraph.models import User
from tests.auth.signing import signed_headers
from tests.conftest import LiveServer
from tests.factories import account, insert_user
from tests.openapi import assert_matches_spec
from tests.sso import idp_documents as idp
from tests.sso.conftest import CREATE, PROVIDERS, assert_error, create, form, provider_names, unique_name

ITEM = "/api/v2/sso-providers/{sso_provider_id}"
MD = "{urn:oasis:names:tc:SAML:2.0:metadata}"


@pytest.mark.parametrize(("document", "issuer", "sso"), [
    (idp.AZURE_AD, idp.AZURE_ENTITY_ID, idp.AZURE_SSO),
    (idp.OKTA, idp.OKTA_ENTITY_ID, idp.OKTA_SSO_POST),
    (idp.KEYCLOAK, idp.KEYCLOAK_ENTITY_ID, idp.KEYCLOAK_SSO),
], ids=["azure-ad", "okta", "keycloak"])
def test_create_from_real_metadata_layouts(admin: httpx.Client, live_server: LiveServer, role_ids: dict,
                                           document: bytes, issuer: str, sso: str) -> None:
    name = unique_name("Corp IdP")
    response = create(admin, name, document, enabled="true", role=str(role_ids["Read-Only"]), role_provision="false")
    assert response.status_code == 200, response.text
    assert_matches_spec(response, CREATE)
    data = response.json()["data"]
    slug = name.lower().replace(" ", "-")
    root = f"{live_server.base_url}/api/v2/sso/{slug}"
    assert data["name"] == data["display_name"] == name
    assert (data["idp_issuer_uri"], data["idp_sso_uri"]) == (issuer, sso)
    assert (data["sp_issuer_uri"], data["sp_sso_uri"], data["sp_metadata_uri"], data["sp_acs_uri"]) == (
        root, f"{root}/login", f"{root}/metadata", f"{root}/callback")
    assert data["root_uri_version"] == 2 and data["principal_attribute_mappings"] == []
    assert data["sso_provider_id"] is not None
    listed = {p["id"]: p for p in admin.get(PROVIDERS).json()["data"]}[data["sso_provider_id"]]
    assert (listed["name"], listed["slug"], listed["type"]) == (name, slug, "saml")
    assert listed["config"] == {"auto_provision": {"enabled": True, "default_role_id": role_ids["Read-Only"],
                                                   "role_provision": False}}
    assert listed["details"]["id"] == data["id"]


def test_service_provider_urls_follow_the_callers_host(admin: httpx.Client, role_ids: dict) -> None:
    name = unique_name()
    response = admin.post(CREATE, data=form(name, role=str(role_ids["User"])),
                          files={"metadata": ("m.xml", idp.OKTA, "text/xml")},
                          headers={"Host": "bloodhound.corp.example:8443", "X-Forwarded-Proto": "https"})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["sp_acs_uri"] == f"https://bloodhound.corp.example:8443/api/v2/sso/{name}/callback"


def test_deprecated_operation_1(admin: httpx.Client, live_server: LiveServer) -> None:
    name = unique_name()
    response = admin.post("/api/v2/saml/providers", data={"name": name},
                          files={"metadata": ("m.xml", idp.AZURE_AD, "application/xml")})
    assert response.status_code == 200, response.text
    assert response.headers["Deprecation"] == "true"
    assert "/api/v2/sso-providers/saml" in response.headers["Link"]
    assert_matches_spec(response, "/api/v2/saml/providers")
    data = response.json()["data"]
    assert (data["name"], data["idp_issuer_uri"], data["idp_sso_uri"]) == (name, idp.AZURE_ENTITY_ID, idp.AZURE_SSO)
    provider = admin.get(f"{PROVIDERS}/{data['sso_provider_id']}").json()["data"]
    assert provider["config"]["auto_provision"]["enabled"] is False
    assert_error(admin.post("/api/v2/saml/providers", files={"name": (None, unique_name())}), 400,
                 'form is missing "metadata" parameter')
    operation = live_server.app.openapi()["paths"]["/api/v2/saml/providers"]["post"]
    assert operation["deprecated"] is True


def test_form_messages(admin: httpx.Client, role_ids: dict) -> None:
    role = str(role_ids["User"])
    metadata = ("m.xml", idp.OKTA, "application/xml")
    name = unique_name()

    def post(fields: dict[str, str] | list[tuple[str, str]], files: list[tuple[str, tuple]]) -> httpx.Response:
        """Always multipart, whatever is missing: the text fields are parts without a file name."""
        pairs = list(fields.items()) if isinstance(fields, dict) else fields
        return admin.post(CREATE, files=[*((key, (None, value)) for key, value in pairs), *files])

    one = [("metadata", metadata)]
    cases = [
        (form(None, role=role), one, 'form is missing "name" parameter'),
        ([("name", name), ("name", name + "2"), *form(None, role=role).items()], one,
         'expected only one "name" parameter'),
        (form(name, role=role), [], 'form is missing "metadata" parameter'),
        (form(name, role=role), one + one, 'expected only one "metadata" parameter'),
        (form(name, role=role, enabled=None), one, 'form is missing "config.auto_provision.enabled" parameter'),
        (form(name, role=None), one, 'form is missing "config.auto_provision.default_role_id" parameter'),
        (form(name, role=role, role_provision=None), one,
         'form is missing "config.auto_provision.role_provision" parameter'),
        ([*form(name, role=role).items(), ("config.auto_provision.enabled", "true")], one,
         'expected only one "config.auto_provision.enabled" parameter'),
        (form(name, role=role, enabled="yes"), one,
         '"config.auto_provision.enabled" parameter could not be converted to bool'),
        (form(name, role=role, role_provision="2"), one,
         '"config.auto_provision.role_provision" parameter could not be converted to bool'),
        (form(name, role="three"), one,
         '"config.auto_provision.default_role_id" parameter could not be converted to int'),
        (form(name, role="987654"), one, '"config.auto_provision.default_role_id" parameter is invalid'),
        (form("", role=role), one, '"name" parameter must not be empty'),
        (form("a/b", role=role), one,
         '"name" parameter may not contain "/", "\\", "?", "#", "%" or control characters'),
        (form(name, role=role), [("metadata", ("m.xml", idp.REDIRECT_ONLY, "text/xml"))],
         "metadata does not have a SSO service that supports HTTP POST binding"),
    ]
    for fields, files, message in cases:
        response = post(fields, files)
        assert_error(response, 400, message)
        assert_matches_spec(response, CREATE)
    assert_error(admin.post(CREATE, json={"name": name}), 400, "request Content-Type isn't multipart/form-data")
    assert_error(admin.post(CREATE, data={"name": name}), 400, "request Content-Type isn't multipart/form-data")
    assert name not in provider_names(admin)


def test_boolean_spellings_of_the_reference(admin: httpx.Client, role_ids: dict) -> None:
    name = unique_name()
    response = create(admin, name, idp.OKTA, enabled="T", role=str(role_ids["User"]), role_provision="1")
    assert response.status_code == 200, response.text
    provider = admin.get(f"{PROVIDERS}/{response.json()['data']['sso_provider_id']}").json()["data"]
    assert provider["config"]["auto_provision"] == {"enabled": True, "default_role_id": role_ids["User"],
                                                    "role_provision": True}


def test_names_are_unique(admin: httpx.Client, role_ids: dict) -> None:
    name = unique_name("Okta Prod")
    assert create(admin, name, idp.OKTA, role=str(role_ids["User"])).status_code == 200
    response = create(admin, name, idp.AZURE_AD, role=str(role_ids["User"]))
    assert_error(response, 409, "sso provider name must be unique")
    assert_matches_spec(response, CREATE)
    # Same slug (case and spaces): the login URLs would collide.
    assert_error(create(admin, name.upper(), idp.OKTA, role=str(role_ids["User"])), 409,
                 "sso provider name must be unique")
    assert_error(create(admin, name.replace(" ", "-"), idp.OKTA, role=str(role_ids["User"])), 409,
                 "sso provider name must be unique")


def test_who_may_manage_providers(live_server: LiveServer, database: Database, role_ids: dict) -> None:
    with account(live_server, database, "User") as user:
        assert_error(create(user.http, unique_name(), idp.OKTA, role=str(role_ids["User"])), 403, "not authorized")
        listing = user.http.get(PROVIDERS)
        assert listing.status_code == 200
        assert_matches_spec(listing, PROVIDERS)
        assert_error(user.http.delete(f"{PROVIDERS}/1"), 403, "not authorized")
        assert_error(user.http.patch(f"{PROVIDERS}/1", files={"name": (None, "x")}), 403, "not authorized")


def test_list_sorts_and_filters(admin: httpx.Client, role_ids: dict) -> None:
    prefix = unique_name("sorted")
    for suffix in ("b", "a", "c"):
        assert create(admin, f"{prefix}-{suffix}", idp.OKTA, role=str(role_ids["User"])).status_code == 200
    listed = admin.get(PROVIDERS, params={"name": f"~eq:{prefix}", "sort_by": "-name"})
    assert listed.status_code == 200
    assert_matches_spec(listed, PROVIDERS)
    assert [p["name"] for p in listed.json()["data"]] == [f"{prefix}-c", f"{prefix}-b", f"{prefix}-a"]
    exact = admin.get(PROVIDERS, params={"slug": f"eq:{prefix}-a"}).json()["data"]
    assert [p["name"] for p in exact] == [f"{prefix}-a"]
    assert_error(admin.get(PROVIDERS, params={"sort_by": "idp"}), 400, "column format does not support sorting: idp")
    assert_error(admin.get(PROVIDERS, params={"secret": "eq:x"}), 400,
                 "the specified column cannot be filtered: secret")


def test_get_one(admin: httpx.Client, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.KEYCLOAK, role=str(role_ids["User"])).json()["data"]
    provider_id = created["sso_provider_id"]
    response = admin.get(f"{PROVIDERS}/{provider_id}")
    assert response.status_code == 200
    details = response.json()["data"]["details"]
    assert details == created | {"updated_at": details["updated_at"]}
    assert_error(admin.get(f"{PROVIDERS}/999999"), 404, "resource not found")
    assert_error(admin.get(f"{PROVIDERS}/abc"), 400, "id is malformed")


def test_update(admin: httpx.Client, live_server: LiveServer, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.OKTA, enabled="true", role=str(role_ids["User"])).json()["data"]
    url = f"{PROVIDERS}/{created['sso_provider_id']}"
    new_name = unique_name("Renamed IdP")
    response = admin.patch(url, data={"name": new_name}, files={"metadata": ("m.xml", idp.AZURE_AD, "text/xml")})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, ITEM)
    data = response.json()["data"]
    slug = new_name.lower().replace(" ", "-")
    assert (data["id"], data["name"], data["display_name"]) == (created["id"], new_name, new_name)
    assert (data["idp_issuer_uri"], data["idp_sso_uri"]) == (idp.AZURE_ENTITY_ID, idp.AZURE_SSO)
    assert data["sp_issuer_uri"] == f"{live_server.base_url}/api/v2/sso/{slug}"
    provider = admin.get(url).json()["data"]
    assert provider["slug"] == slug
    assert provider["config"]["auto_provision"] == {"enabled": True, "default_role_id": role_ids["User"],
                                                    "role_provision": False}

    # Config fields one at a time; the others keep their values.
    assert admin.patch(url, files={"config.auto_provision.role_provision": (None, "true")}).status_code == 200
    assert admin.patch(url, files={"config.auto_provision.default_role_id": (None, str(role_ids["Read-Only"]))}
                       ).status_code == 200
    assert admin.get(url).json()["data"]["config"]["auto_provision"] == {
        "enabled": True, "default_role_id": role_ids["Read-Only"], "role_provision": True}
    assert_error(admin.patch(url, files={"config.auto_provision.default_role_id": (None, "987654")}), 400,
                 '"config.auto_provision.default_role_id" parameter is invalid')
    assert_error(admin.patch(url, files={"metadata": ("m.xml", idp.REDIRECT_ONLY, "text/xml")}), 400,
                 "metadata does not have a SSO service that supports HTTP POST binding")
    assert_error(admin.patch(url, data={"name": new_name}, files=[("name", (None, "other"))]), 400,
                 'expected only one "name" parameter')
    assert_error(admin.patch(url, json={"name": "x"}), 400, "request Content-Type isn't multipart/form-data")
    assert_error(admin.patch(f"{PROVIDERS}/999999", files={"name": (None, "x")}), 404, "resource not found")
    other = create(admin, unique_name(), idp.OKTA, role=str(role_ids["User"])).json()["data"]
    assert_error(admin.patch(url, files={"name": (None, other["name"])}), 409, "sso provider name must be unique")
    assert admin.get(url).json()["data"]["name"] == new_name


def test_update_follows_the_acs_layout_in_new_metadata(admin: httpx.Client, role_ids: dict) -> None:
    name = unique_name()
    created = create(admin, name, idp.OKTA, role=str(role_ids["User"])).json()["data"]
    url = f"{PROVIDERS}/{created['sso_provider_id']}"
    legacy = idp.with_acs(idp.OKTA, f"https://bh.example/api/v1/login/saml/{name}/acs")
    data = admin.patch(url, files={"metadata": ("m.xml", legacy, "text/xml")}).json()["data"]
    assert data["root_uri_version"] == 1
    assert data["sp_acs_uri"].endswith(f"/api/v1/login/saml/{name}/acs")
    current = idp.with_acs(idp.OKTA, f"https://bh.example/api/v2/sso/{name}/callback")
    assert admin.patch(url, files={"metadata": ("m.xml", current, "text/xml")}).json()["data"]["root_uri_version"] == 2
    elsewhere = idp.with_acs(idp.OKTA, "https://elsewhere.example/saml/acs")
    assert_error(admin.patch(url, files={"metadata": ("m.xml", elsewhere, "text/xml")}), 400,
                 "metadata does not have a valid ACS location")


def test_delete_answers_the_affected_users(admin: httpx.Client, database: Database, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.OKTA, role=str(role_ids["User"])).json()["data"]
    provider_id = created["sso_provider_id"]
    linked = {insert_user(database, "User", sso_provider_id=provider_id).id for _ in range(2)}
    bystander = insert_user(database, "User").id
    response = admin.delete(f"{PROVIDERS}/{provider_id}")
    assert response.status_code == 200, response.text
    assert_matches_spec(response, ITEM)
    affected = response.json()["data"]["affected_users"]
    assert {user["id"] for user in affected} == linked
    assert all(user["sso_provider_id"] == provider_id for user in affected)
    assert provider_id not in {p["id"] for p in admin.get(PROVIDERS).json()["data"]}
    with Session(database.sync_engine) as session:
        remaining = session.scalars(select(User.sso_provider_id).where(User.id.in_([*linked, bystander]))).all()
    assert remaining == [None, None, None]
    assert_error(admin.delete(f"{PROVIDERS}/{provider_id}"), 404, "resource not found")
    assert_error(admin.delete(f"{PROVIDERS}/nope"), 400, "id is malformed")


def test_administrators_may_not_delete_the_provider_they_log_in_with(admin: httpx.Client, live_server: LiveServer,
                                                                   database: Database, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.OKTA, role=str(role_ids["User"])).json()["data"]
    provider_id = created["sso_provider_id"]
    with account(live_server, database, "Administrator", sso_provider_id=provider_id) as sso_admin:
        response = sso_admin.http.delete(f"{PROVIDERS}/{provider_id}")
        assert_error(response, 409, "user may not delete their own SAML auth provider")
        assert_matches_spec(response, ITEM)
    assert admin.delete(f"{PROVIDERS}/{provider_id}").status_code == 200


def test_service_provider_metadata_is_public(admin: httpx.Client, client: httpx.Client, role_ids: dict) -> None:
    name = unique_name("Metadata Check")
    data = create(admin, name, idp.AZURE_AD, role=str(role_ids["User"])).json()["data"]
    anonymous = httpx.get(data["sp_metadata_uri"])
    assert anonymous.status_code == 200, anonymous.text
    assert anonymous.headers["content-type"] == "application/samlmetadata+xml"
    root = ElementTree.fromstring(anonymous.content, forbid_dtd=True)
    assert root.tag == f"{MD}EntityDescriptor" and root.get("entityID") == data["sp_issuer_uri"]
    acs = root.find(f"{MD}SPSSODescriptor/{MD}AssertionConsumerService")
    assert acs is not None
    assert (acs.get("Location"), acs.get("Binding")) == (data["sp_acs_uri"],
                                                          "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST")
    assert_error(client.get("/api/v2/sso/no-such-provider/metadata"), 404, "resource not found")


def test_a_signed_request_creates_a_provider(admin: httpx.Client, live_server: LiveServer, role_ids: dict) -> None:
    """With HMAC signatures the streamed form is spooled while it is hashed; the form is read from the spool."""
    token = admin.post("/api/v2/tokens", json={"token_name": unique_name("token")}).json()["data"]
    name = unique_name("signed")
    request = httpx.Request("POST", f"{live_server.base_url}{CREATE}", data=form(name, role=str(role_ids["User"])),
                            files={"metadata": ("m.xml", idp.KEYCLOAK, "application/xml")})
    body = request.read()
    request.headers.update(signed_headers(token["id"], token["key"], "POST", CREATE, body))
    with httpx.Client() as anonymous:
        response = anonymous.send(request)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["idp_issuer_uri"] == idp.KEYCLOAK_ENTITY_ID
    assert admin.delete(f"/api/v2/tokens/{token['id']}").status_code == 200


def test_the_deprecated_saml_routes(admin: httpx.Client, client: httpx.Client, role_ids: dict) -> None:
    created = create(admin, unique_name(), idp.OKTA, role=str(role_ids["User"])).json()["data"]
    listed = admin.get("/api/v2/saml")
    assert listed.status_code == 200 and listed.headers["Deprecation"] == "true"
    assert created["id"] in [p["id"] for p in listed.json()["data"]["saml_providers"]]
    one = admin.get(f"/api/v2/saml/providers/{created['id']}")
    assert one.status_code == 200 and one.json()["data"]["sso_provider_id"] == created["sso_provider_id"]
    endpoints = client.get("/api/v2/saml/sso").json()["data"]["endpoints"]
    assert {"name": created["name"], "initiation_url": created["sp_sso_uri"]} in endpoints
    deleted = admin.delete(f"/api/v2/saml/providers/{created['id']}")
    assert deleted.status_code == 200 and deleted.json()["data"] == {"affected_users": []}
    assert admin.get(f"/api/v2/saml/providers/{created['id']}").status_code == 404
    assert admin.get(f"/api/v2/sso-providers/{created['sso_provider_id']}").status_code == 404
