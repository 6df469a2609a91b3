"""A client token opens only the client routes; a user cannot act as a client."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.client.helpers import as_client, create_client, error_message
from tests.conftest import LiveServer
from tests.factories import user_with_role
from tests.user.helpers import api_tokens_disabled


def test_a_client_token_cannot_read_the_graph_or_manage_users(admin: httpx.Client, live_server: LiveServer) -> None:
    created = create_client(admin)
    with as_client(live_server.base_url, created) as signer:
        for method, path in [("POST", "/api/v2/graphs/cypher"), ("GET", "/api/v2/search?q=admin"),
                             ("GET", "/api/v2/bloodhound-users"), ("POST", "/api/v2/bloodhound-users"),
                             ("GET", "/api/v2/self"), ("GET", "/api/v2/clients"), ("POST", "/api/v2/tokens"),
                             ("POST", "/api/v2/file-upload/start"), ("GET", "/api/v2/jobs")]:
            response = signer.request(method, path, json={"query": "MATCH (n) RETURN n"})
            assert error_message(response, 403) == "not authorized", f"{method} {path}"
        checked_in = signer.put("/api/v2/clients/update", json={
            "address": "10.0.0.5", "hostname": "collector01", "username": "TESTLAB\\svc", "version": "2.5.7",
            "usersid": "S-1-5-21-1-2-3-1105"})
        assert checked_in.status_code == 200, checked_in.text
    shown = admin.get(f"/api/v2/clients/{created['id']}").json()["data"]
    assert (shown["ip_address"], shown["hostname"], shown["configured_user"], shown["version"]) == \
        ("10.0.0.5", "collector01", "TESTLAB\\svc", "2.5.7")
    assert shown["user_sid"] == "S-1-5-21-1-2-3-1105"
    assert shown["last_checkin"] > "2000"


def test_a_user_cannot_impersonate_a_client(admin: httpx.Client) -> None:
    create_client(admin)
    for method, path in [("PUT", "/api/v2/clients/update"), ("GET", "/api/v2/jobs/available"),
                         ("POST", "/api/v2/jobs/start"), ("POST", "/api/v2/jobs/end"), ("GET", "/api/v2/jobs/current"),
                         ("POST", "/api/v2/clients/error")]:
        # The upstream spec: "For users, this endpoint will return a 404".
        assert error_message(admin.request(method, path, json={"id": 1}), 404) == "resource not found", path
    # A user's file to /api/v2/ingest is the legacy one-shot ingest, a job of the user's own: it is read as a
    # collector file (this one is not), never into a client's job.
    response = admin.post("/api/v2/ingest", json={"id": 1})
    assert error_message(response, 400) == "no valid meta tag or data tag found"


def test_reading_clients_needs_the_clients_permission(admin: httpx.Client) -> None:
    _, user = user_with_role(admin, "User")
    assert admin.get("/api/v2/clients", headers=user).status_code == 200
    response = admin.post("/api/v2/clients", json={"name": "x", "type": "sharphound"}, headers=user)
    assert error_message(response, 403) == "not authorized"
    _, read_only = user_with_role(admin, "Read-Only")
    assert error_message(admin.get("/api/v2/events", headers=read_only), 403) == "not authorized"


def test_clients_still_sign_in_when_users_api_keys_are_disabled(admin: httpx.Client, database: Database,
                                                                live_server: LiveServer) -> None:
    created = create_client(admin)
    with as_client(live_server.base_url, created) as signer, api_tokens_disabled(database):
        assert signer.put("/api/v2/clients/update", json={"hostname": "h"}).status_code == 200
