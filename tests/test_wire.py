"""The reference's wire behaviour that real clients depend on beyond single routes (issue #15)."""

from __future__ import annotations

import http.client

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.auth.signing import signed_headers
from tests.conftest import LiveServer, another_server
from tests.factories import unique
from tests.user.helpers import assert_error


def raw_get(client: httpx.Client, raw_path: str, follow_redirects: bool = False) -> httpx.Response:
    """A request whose path is sent byte for byte (httpx would otherwise read `//api` as a host)."""
    request = client.build_request("GET", "/")
    request.url = request.url.copy_with(raw_path=raw_path.encode())
    return client.send(request, follow_redirects=follow_redirects)


@pytest.mark.parametrize(("sent", "location"), [
    ("//api/v2/self", "/api/v2/self"),
    ("/api/v2//self", "/api/v2/self"),
    ("//api/v2/tokens?sort_by=name", "/api/v2/tokens?sort_by=name"),
    ("/api/v2//saved-queries/", "/api/v2/saved-queries/"),
    # A browser reads `/\evil.example` as `//evil.example`, another site: the backslash stays a path character.
    ("//\\evil.example", "/%5Cevil.example"),
    ("//\\/evil.example/", "/%5C/evil.example/"),
])
def test_unclean_paths_redirect_permanently_to_the_cleaned_path(admin: httpx.Client, sent: str,
                                                                 location: str) -> None:
    response = raw_get(admin, sent)
    assert response.status_code == 301
    assert response.headers["Location"] == location
    assert response.content == b""


def test_a_client_with_a_trailing_slash_base_url_reaches_the_route(admin: httpx.Client) -> None:
    """What a CLI configured with `https://host/` sends: the redirect leads to a working answer."""
    response = raw_get(admin, "//api/v2/self", follow_redirects=True)
    assert response.status_code == 200
    assert response.json()["data"]["principal_name"] == "admin"


def test_unknown_route_is_gos_plain_not_found_page(client: httpx.Client) -> None:
    response = client.get("/api/v2/no-such-thing")
    assert response.status_code == 404
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.text == "404 page not found\n"


def test_known_route_with_another_method_is_405_without_body(client: httpx.Client) -> None:
    response = client.delete("/api/v2/login")
    assert response.status_code == 405
    assert response.content == b""


def test_no_result_is_still_the_json_error_body(admin: httpx.Client) -> None:
    """A route that exists but finds nothing keeps the reference's JSON error: the two are told apart."""
    assert_error(admin.get("/api/v2/saved-queries/987654321"), 404)


def test_self_writes_nullable_fields_as_plain_values_or_null(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    assert me["sso_provider_id"] is None
    assert me["email_address"] is None or isinstance(me["email_address"], str)
    assert isinstance(me["first_name"], str | None)
    # `deleted_at` is a bare sql.NullTime in the reference's model.Basic, written as the Go struct.
    assert me["deleted_at"] == {"Time": "0001-01-01T00:00:00Z", "Valid": False}


def _path_only_signed_get(client: httpx.Client, token: dict, path: str, query: str) -> httpx.Response:
    headers = signed_headers(token["id"], token["key"], "GET", path)
    return client.get(f"{path}?{query}", headers=headers)


def _new_token(admin: httpx.Client) -> dict:
    response = admin.post("/api/v2/tokens", json={"token_name": unique("path-only")})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_a_path_only_signature_is_refused_by_default(admin: httpx.Client, client: httpx.Client) -> None:
    token = _new_token(admin)
    response = _path_only_signed_get(client, token, "/api/v2/tokens", "sort_by=name")
    assert_error(response, 401, "unable to validate request signature for client: "
                                "digest validation failed: signature digest mismatch")


def test_a_path_only_signature_is_accepted_when_enabled(admin: httpx.Client, server_settings: Settings,
                                                        database: Database) -> None:
    token = _new_token(admin)
    with another_server(server_settings, database, accept_path_only_signatures=True) as server, \
            httpx.Client(base_url=server.base_url) as other:
        response = _path_only_signed_get(other, token, "/api/v2/tokens", f"name=eq:{token['name']}")
        assert response.status_code == 200, response.text
        assert [t["id"] for t in response.json()["data"]["tokens"]] == [token["id"]]
        # The full form still works, and a signature over neither form still fails.
        full = "/api/v2/self"
        assert other.get(full, headers=signed_headers(token["id"], token["key"], "GET", full)).status_code == 200
        forged = signed_headers(token["id"], token["key"], "GET", "/api/v2/other")
        assert other.get("/api/v2/tokens?sort_by=name", headers=forged).status_code == 401


def test_a_dot_and_backslash_path_does_not_redirect_off_site(live_server: LiveServer) -> None:
    # Sent byte for byte (httpx drops the dot segment itself): `Location: /\evil.example` took browsers away.
    connection = http.client.HTTPConnection("127.0.0.1", live_server.settings.port, timeout=30)
    try:
        connection.request("GET", "/./\\evil.example")
        response = connection.getresponse()
        assert response.status == 301 and response.getheader("Location") == "/%5Cevil.example"
    finally:
        connection.close()
